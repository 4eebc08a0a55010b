// Whether a URI could have been produced by an RFC 6570 URI template (resource templates, G-20):
// a disabled template also refuses the reads of the URIs it describes. Literal parts must match
// exactly; each expression matches what its operator can expand to (simple and `+`/`#`
// expansions, `.`/`/`/`;` path-style lists, `?`/`&` query parts). A template that is not well
// formed (an unclosed brace) is matched literally.
#pragma once

#include <string_view>

namespace coffer::curation {

bool uri_template_matches(std::string_view uri_template, std::string_view uri);

}  // namespace coffer::curation
