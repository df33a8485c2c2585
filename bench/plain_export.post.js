// For `npm run bench` only (bench/plain_export.cpp): appended to the emscripten glue of the plain
// export build, Module.api(text) -> text over the exported C functions sb_api and sb_api_size.
// Nothing the core returns is ever thrown; the strings cross as UTF-8 in the module's heap, with
// their lengths passed along so that neither side scans for a NUL.
var sbEncoder = new TextEncoder();
var sbDecoder = new TextDecoder();
Module['api'] = function (text) {
  text = String(text);
  // Encoded straight into the heap: UTF-8 takes at most 3 bytes per UTF-16 unit.
  var room = text.length * 3 + 1;
  var ptr = _malloc(room);
  try {
    var size = sbEncoder.encodeInto(text, HEAPU8.subarray(ptr, ptr + room)).written;
    var out = _sb_api(ptr, size);
    // HEAPU8 is read again after the call: the heap may have grown during it.
    return sbDecoder.decode(HEAPU8.subarray(out, out + _sb_api_size()));
  } finally {
    _free(ptr);
  }
};
