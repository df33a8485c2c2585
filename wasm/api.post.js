// Appended to the emscripten glue: Module.api(text) -> text over the exported C functions sb_api
// and sb_api_size. Nothing the core returns is ever thrown; the strings cross as UTF-8 in the
// module's heap, with their lengths passed along so that neither side scans for a NUL.
var sbEncoder = new TextEncoder();
var sbDecoder = new TextDecoder();
Module['api'] = function (text) {
  var bytes = sbEncoder.encode(String(text));
  var ptr = _malloc(bytes.length + 1);
  try {
    HEAPU8.set(bytes, ptr);
    var out = _sb_api(ptr, bytes.length);
    // HEAPU8 is read again after the call: the heap may have grown during it.
    return sbDecoder.decode(HEAPU8.subarray(out, out + _sb_api_size()));
  } finally {
    _free(ptr);
  }
};
