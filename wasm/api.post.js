// Appended to the emscripten glue: Module.api(text) -> text over the exported C function sb_api.
// Nothing the core returns is ever thrown; the strings cross as UTF-8 in the module's heap.
Module['api'] = function (text) {
  var size = lengthBytesUTF8(text) + 1;
  var ptr = _malloc(size);
  try {
    stringToUTF8(text, ptr, size);
    return UTF8ToString(_sb_api(ptr));
  } finally {
    _free(ptr);
  }
};
