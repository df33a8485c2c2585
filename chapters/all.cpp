// Every chapter's calculators and problems, registered once (called by Registry::get()).
#include "core/registry.hpp"

namespace sb {
namespace roofline { void register_all(Registry&); }
namespace tpus { void register_all(Registry&); }
namespace sharding { void register_all(Registry&); }

void register_chapters(Registry& r) {
  roofline::register_all(r);
  tpus::register_all(r);
  sharding::register_all(r);
}
}  // namespace sb
