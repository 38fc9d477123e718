// Reading a map file's bytes: the checks every map reader runs before parsing.
#include "augur/config/deployment_file.hpp"
#include "augur/runtime/scene/map_readers.hpp"

namespace augur::runtime::scene {

Result<MapFileContent, MapError> readMapFile(const std::string& path, const MapFileCheck& check) {
    Result<std::string, config::FileError> read = config::readRegularFile(path, check.maxBytes);
    if (read.hasError()) {
        const config::FileError& problem = read.error();
        const bool rejected =
            problem.kind == config::FileErrorKind::NotRegular || problem.kind == config::FileErrorKind::TooLarge;
        std::string message = problem.message;
        if (problem.kind == config::FileErrorKind::TooLarge) {
            message += " (map.max_bytes)";
        }
        const MapErrorCode code = rejected ? MapErrorCode::FileRejected : MapErrorCode::Io;
        return fail(MapError{code, path, 0, "", std::move(message)});
    }
    MapFileContent content{std::move(read).value(), {}};
    content.sha256 = config::sha256Hex(content.text);
    if (!check.sha256.empty() && !config::sameSha256(content.sha256, check.sha256)) {
        return fail(MapError{MapErrorCode::HashMismatch, path, 0, "",
                             "SHA-256 is " + content.sha256 + ", expected " + check.sha256 +
                                 " (map.sha256; the file is truncated or was changed since it was pinned)"});
    }
    return content;
}

}  // namespace augur::runtime::scene
