// Why a map could not be loaded: which file, which line and element, and what was wrong.
#pragma once

#include <cstdint>
#include <string>

namespace augur::runtime::scene {

enum class MapErrorCode : std::uint8_t {
    Io,                  ///< file missing or unreadable
    FileRejected,        ///< not a regular file (directory, FIFO, device…), or over the size limit
    HashMismatch,        ///< the file's SHA-256 is not the pinned one (map.sha256)
    Xml,                 ///< not well-formed XML (see line)
    WrongFormat,         ///< well-formed, but not a Lanelet2 OSM / SUMO network
    MissingAttribute,    ///< a required attribute is absent
    BadValue,            ///< an attribute does not parse as the expected number / list
    DanglingReference,   ///< refers to a node, way, relation or lane that does not exist
    BadGeometry,         ///< fewer than two distinct points, zero length, unusable bounds
    DuplicateId,         ///< two elements of one kind with the same id
    Empty,               ///< no drivable lane in the file
};

struct MapError {
    MapErrorCode code{MapErrorCode::Io};
    std::string file;
    std::uint32_t line{0};  ///< 1-based line of the offending element, 0 when not applicable
    std::string elementId;  ///< e.g. "relation 45014", "lane E0_1"; empty when not applicable
    std::string message;

    /// "file:line: element: message" for logs and the CLI.
    [[nodiscard]] std::string describe() const;
};

[[nodiscard]] const char* toString(MapErrorCode code) noexcept;

}  // namespace augur::runtime::scene
