// Appended to the emscripten glue: Module.api(text) -> text, the module's face (docs/API.md), over
// the embind entry point Module.sb_api (wasm/bindings.cpp), which takes the request as a string and
// returns a view of the answer's bytes in the module's heap. Responses are ASCII JSON. Module.api
// never throws: the core returns its errors as values, and a failure of the call itself (a broken
// module) comes back as an `internal` error value too.
var sbDecoder = new TextDecoder();

// The core refuses a request over 33 MiB of UTF-8 (core/json.hpp kLongRequestBytes: 1 MiB, plus
// room for one long-text input of up to 16 MiB with its JSON escapes; core/api.cpp refuses the
// rest past 1 MiB once it has read it). The same refusal here, before the text is copied into the
// heap, keeps a huge request from growing the heap for good (wasm memory never shrinks). A UTF-16
// unit takes 1 to 3 bytes of UTF-8: a text of up to a third of the cap in units passes as it is,
// a longer one is encoded here to count its bytes, and its bytes are what crosses
// (wasm/embind.lib.js takes a std::string as either).
var sbEncoder = new TextEncoder();
var sbMaxRequest = 33 << 20;
var sbTooLarge =
  '{"ok":false,"error":{"code":"too_large","field":"request","message":"the request is over 33 MiB"}}';

Module['api'] = function (text) {
  try {
    text = String(text);
    if (text.length > sbMaxRequest) return sbTooLarge;
    var request = text.length * 3 > sbMaxRequest ? sbEncoder.encode(text) : text;
    if (request.length > sbMaxRequest) return sbTooLarge;
    // Decoded at once: the view is valid until the next call.
    return sbDecoder.decode(Module['sb_api'](request));
  } catch (e) {
    return JSON.stringify({
      ok: false,
      error: { code: 'internal', field: '', message: 'module call failed: ' + (e && e.message ? e.message : e) },
    });
  }
};
