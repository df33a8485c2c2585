// A JS library linked after embind's own: embind's start-up registers every builtin C++ type
// (bool, the integer and float types, int64, wstring/u16string/u32string, void), and each
// registration pulls its converters into the glue. The module's one entry point passes a
// std::string in and an emscripten::val (a memory_view) out, so these are registered as no-ops.
// A binding that passes one of these types fails with "unbound types" at its first call (the
// node tests call every op), and must then drop its name from this list.
mergeInto(LibraryManager.library, {
  _embind_register_void: function () {},
  _embind_register_bool: function () {},
  _embind_register_integer: function () {},
  _embind_register_bigint: function () {},
  _embind_register_float: function () {},
  _embind_register_std_wstring: function () {},
});
