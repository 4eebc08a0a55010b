#include "archive_writer.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <stdexcept>
#include <sys/stat.h>

namespace skill_test {

void write_archive(const std::filesystem::path& out, const std::vector<Entry>& entries, bool zip) {
    struct archive* a = archive_write_new();
    if (zip) {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        archive_write_add_filter_gzip(a);
    }
    if (archive_write_open_filename(a, out.c_str()) != ARCHIVE_OK)
        throw std::runtime_error(std::string("cannot write archive: ") + archive_error_string(a));
    for (auto& e : entries) {
        struct archive_entry* en = archive_entry_new();
        archive_entry_set_pathname(en, e.name.c_str());
        archive_entry_set_perm(en, static_cast<mode_t>(e.mode));
        archive_entry_set_mtime(en, 1700000000, 0);
        switch (e.type) {
            case 'd': archive_entry_set_filetype(en, AE_IFDIR); break;
            case 'l':
                archive_entry_set_filetype(en, AE_IFLNK);
                archive_entry_set_symlink(en, e.link.c_str());
                break;
            case 'h':
                archive_entry_set_filetype(en, AE_IFREG);
                archive_entry_set_hardlink(en, e.link.c_str());
                break;
            case 'p': archive_entry_set_filetype(en, AE_IFIFO); break;
            default:
                archive_entry_set_filetype(en, AE_IFREG);
                archive_entry_set_size(en, static_cast<la_int64_t>(e.data.size()));
        }
        if (archive_write_header(a, en) != ARCHIVE_OK) {
            // libarchive may have no message; free both before throwing (the fuzz target throws often).
            const char* why = archive_error_string(a);
            std::string what = std::string("cannot write entry ") + e.name + ": " + (why ? why : "refused by libarchive");
            archive_entry_free(en);
            archive_write_free(a);
            throw std::runtime_error(what);
        }
        if (e.type == 'f' && !e.data.empty()) archive_write_data(a, e.data.data(), e.data.size());
        archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
}

}  // namespace skill_test
