// CPU reference of λ and of the seed's combination Γ_i = λ_⌊i/n_a⌋·ψ_sub[i mod n_a²] (Sec. 4.3.1).
#include "augur/kernels/markov/priority.hpp"

#include <algorithm>
#include <cstddef>

namespace augur::kernels::markov {

InputDynamics identityInputDynamics(int inputCells) noexcept {
    InputDynamics d;
    for (int u = 0; u < inputCells && u < MAX_INPUT_CELLS; ++u) {
        d.psi[u * inputCells + u] = 1.0F;
    }
    return d;
}

InputDynamics bandedInputDynamics(int inputCells, float stay) noexcept {
    InputDynamics d;
    const int na = inputCells < MAX_INPUT_CELLS ? inputCells : MAX_INPUT_CELLS;
    for (int up = 0; up < na; ++up) {
        const bool hasLower = up > 0;
        const bool hasUpper = up + 1 < na;
        const int neighbours = (hasLower ? 1 : 0) + (hasUpper ? 1 : 0);
        if (neighbours == 0) {
            d.psi[up * na + up] = 1.0F;
            continue;
        }
        d.psi[up * na + up] = stay;
        const float move = (1.0F - stay) / static_cast<float>(neighbours);
        if (hasLower) {
            d.psi[(up - 1) * na + up] = move;
        }
        if (hasUpper) {
            d.psi[(up + 1) * na + up] = move;
        }
    }
    return d;
}

InputDynamics mixingInputDynamics(int inputCells, float stay) noexcept {
    InputDynamics d;
    const int na = inputCells < MAX_INPUT_CELLS ? inputCells : MAX_INPUT_CELLS;
    const float move = na > 1 ? (1.0F - stay) / static_cast<float>(na - 1) : 0.0F;
    for (int up = 0; up < na; ++up) {
        for (int u = 0; u < na; ++u) {
            d.psi[u * na + up] = na == 1 ? 1.0F : (u == up ? stay : move);
        }
    }
    return d;
}

InputDynamics relaxingInputDynamics(int inputCells, float depart, float relax, float surprise) noexcept {
    InputDynamics d;
    const int na = inputCells < MAX_INPUT_CELLS ? inputCells : MAX_INPUT_CELLS;
    if (na == 1) {
        d.psi[0] = 1.0F;
        return d;
    }
    // Cruise: the input(s) of smallest |u| (the middle one, or the middle two).
    const int lowCruise = (na - 1) / 2;
    const int highCruise = na / 2;
    const float uniform = surprise / static_cast<float>(na);
    for (int up = 0; up < na; ++up) {
        float column[MAX_INPUT_CELLS] = {};
        if (up >= lowCruise && up <= highCruise) {
            const bool hasLower = up > 0;
            const bool hasUpper = up + 1 < na;
            const float move = depart / static_cast<float>((hasLower ? 1 : 0) + (hasUpper ? 1 : 0));
            column[up] = 1.0F - depart;
            if (hasLower) {
                column[up - 1] += move;
            }
            if (hasUpper) {
                column[up + 1] += move;
            }
        } else {
            // The pedal released: k inputs away from cruise, k² times as often (a hard input is a brief one).
            const int level = up < lowCruise ? lowCruise - up : up - highCruise;
            const float release = std::min(1.0F, relax * static_cast<float>(level * level));
            column[up] = 1.0F - release;
            column[up < lowCruise ? lowCruise : highCruise] += release;
        }
        for (int u = 0; u < na; ++u) {
            d.psi[u * na + up] = (1.0F - surprise) * column[u] + uniform;
        }
    }
    return d;
}

namespace cpu {

void priorityVector(const ChainConfig& chain, const CorridorConstraints& constraints, const PriorityRules& rules,
                    float time_s, std::span<float> lambda) noexcept {
    const int na = chain.inputCells;
    const int nv = chain.speedCells;
    for (int is = 0; is < chain.positionCells; ++is) {
        const float s = positionCellUpper_m(is, chain);
        for (int iv = 0; iv < nv; ++iv) {
            const float v = speedCellUpper_mps(iv, chain);
            for (int j = 0; j < na; ++j) {
                lambda[static_cast<std::size_t>((is * nv + iv) * na + j)] =
                    priority(s, v, j, time_s, constraints, rules, chain);
            }
        }
    }
}

void combineInputTransition(std::span<const float> lambda, const InputDynamics& psi, int inputCells, int cells,
                            std::span<float> gamma, bool renormalise) noexcept {
    const int na = inputCells;
    const int blockSize = na * na;
    const std::size_t count = static_cast<std::size_t>(cells) * static_cast<std::size_t>(blockSize);
    for (std::size_t i = 0; i < count; ++i) {
        gamma[i] = lambda[i / static_cast<std::size_t>(na)] * psi.psi[i % static_cast<std::size_t>(blockSize)];
    }
    if (!renormalise) {
        return;
    }
    for (int c = 0; c < cells; ++c) {
        float* block = gamma.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(blockSize);
        for (int up = 0; up < na; ++up) {
            float sum = 0.0F;
            for (int u = 0; u < na; ++u) {
                sum += block[u * na + up];
            }
            for (int u = 0; u < na; ++u) {
                block[u * na + up] = sum > 0.0F ? block[u * na + up] / sum : (u == 0 ? 1.0F : 0.0F);
            }
        }
    }
}

}  // namespace cpu
}  // namespace augur::kernels::markov
