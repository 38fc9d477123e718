#include "augur/config/yaml_writer.hpp"

#include <string_view>
#include <vector>

#include "augur/config/schema.hpp"
#include "text.hpp"

namespace augur::config {
namespace {

std::vector<std::string_view> components(std::string_view path) {
    std::vector<std::string_view> parts;
    while (!path.empty()) {
        const std::size_t dot = path.find('.');
        parts.push_back(path.substr(0, dot));
        path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    }
    return parts;
}

constexpr std::size_t INDENT_PER_LEVEL = 2;

}  // namespace

std::string toYaml(const Deployment& deployment) {
    std::string out = "# augur deployment: every key of the schema with its value (see docs/configuration.md).\n";
    std::vector<std::string_view> open;  // the sections the next line is nested in
    for (const KeySpec& key : schema()) {
        const std::vector<std::string_view> parents = components(detail::parentPath(key.path));
        std::size_t common = 0;
        while (common < open.size() && common < parents.size() && open[common] == parents[common]) {
            ++common;
        }
        open.resize(common);
        for (std::size_t level = common; level < parents.size(); ++level) {
            out.append(level * INDENT_PER_LEVEL, ' ');
            out.append(parents[level]);
            out += ":\n";
            open.push_back(parents[level]);
        }
        out.append(parents.size() * INDENT_PER_LEVEL, ' ');
        out.append(detail::leafName(key.path));
        out += ": ";
        out += formatValue(key, key.read(deployment));
        out += '\n';
    }
    return out;
}

}  // namespace augur::config
