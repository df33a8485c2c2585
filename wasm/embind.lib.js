// A JS library linked after embind's own, which it trims and speeds up for the module's one entry
// point, sb_api(std::string) -> emscripten::val (wasm/bindings.cpp). bench/README.md has the
// measurements.
mergeInto(LibraryManager.library, {
  // embind's start-up registers every builtin C++ type, and each registration pulls its converters
  // into the glue. The entry point passes none of these, so they are registered as no-ops; a
  // binding that passes one fails with "unbound types" at its first call (the node tests call
  // every op) and must then drop its name from this list.
  _embind_register_void: function () {},
  _embind_register_bool: function () {},
  _embind_register_integer: function () {},
  _embind_register_bigint: function () {},
  _embind_register_float: function () {},
  _embind_register_std_wstring: function () {},
  // Module.count_emval_handles and get_first_emval, debugging aids, are left out.
  $init_emval__deps: [],
  $init_emval: function () {},

  // std::string arguments, in embind's wire form (a u32 length, the UTF-8 bytes, a NUL in a malloc'd
  // block the invoker frees after the call), from a JS string written by TextEncoder.encodeInto with
  // room for 3 bytes per UTF-16 unit, or from a Uint8Array of UTF-8 copied as is (Module.api passes
  // one for a long request, whose bytes it had to count anyway). embind's own converter counts and
  // writes the UTF-8 in two JS loops; returning a std::string to JS is not supported here (the
  // entry point returns a view).
  _embind_register_std_string__deps: ['$readLatin1String', '$registerType', '$simpleReadValueFromPointer', '$throwBindingError'],
  _embind_register_std_string: function (rawType, name) {
    var encoder = new TextEncoder();
    registerType(rawType, {
      name: readLatin1String(name),
      'toWireType': function (destructors, value) {
        var text = typeof value == 'string';
        if (!text && !(value instanceof Uint8Array)) throwBindingError('Cannot pass non-string to std::string');
        var room = text ? value.length * 3 : value.length;
        var ptr = _malloc(4 + room + 1);
        var n = room;
        if (text) n = encoder.encodeInto(value, HEAPU8.subarray(ptr + 4, ptr + 4 + room)).written;
        else HEAPU8.set(value, ptr + 4);
        HEAPU32[ptr >> 2] = n;
        HEAPU8[ptr + 4 + n] = 0;
        return ptr;
      },
      'argPackAdvance': 8,
      'readValueFromPointer': simpleReadValueFromPointer,
      destructorFunction: function (ptr) {
        _free(ptr);
      },
    });
  },
});
