// What the things a request names tell about the tool it needs. Users name files, addresses and
// numbers rather than say "file", "URL" or "number": "show me what's inside notes.txt", "open
// https://example.com", "add 17 and 25". A small recogniser reads the request's raw text and
// adds the word of each thing's type — a file name with an extension brings "file", a URL or a
// domain "url" and "page", a path "path" and "directory", an e-mail address "email", host:port
// "port", two or more numbers "number" — and question words bring what they ask for ("who" →
// user, "where" → location, "when" → time, "how many" → count). A closed set of forms, not a
// thesaurus of content words; the terms come tokenized and stemmed, at the weight the caller gives.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coffer::toolsearch {

// The type words of what `query` names, tokenized and stemmed (duplicates removed).
std::vector<std::string> entity_terms(std::string_view query);

}  // namespace coffer::toolsearch
