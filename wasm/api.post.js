// Appended to the emscripten glue: Module.api(text) -> text, the module's face (docs/API.md), over
// the embind entry point Module.sb_api (wasm/bindings.cpp), which takes the request as a string and
// returns a view of the answer's bytes in the module's heap. Responses are ASCII JSON. Module.api
// never throws: the core returns its errors as values, and a failure of the call itself (a broken
// module) comes back as an `internal` error value too.
var sbDecoder = new TextDecoder();
Module['api'] = function (text) {
  try {
    // Decoded at once: the view is valid until the next call.
    return sbDecoder.decode(Module['sb_api'](String(text)));
  } catch (e) {
    return JSON.stringify({
      ok: false,
      error: { code: 'internal', field: '', message: 'module call failed: ' + (e && e.message ? e.message : e) },
    });
  }
};
