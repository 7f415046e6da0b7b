// A roofline plot written directly as SVG (no plotting dependency): log-log axes of arithmetic
// intensity (FLOP/byte) against FLOP/s, the machine's roof, and one point per implementation.
#pragma once

#include <string>
#include <vector>

namespace fattn::cli {

struct RooflinePoint {
  std::string label;
  double intensity = 0;          // FLOP per byte the algorithm moves
  double minimal_intensity = 0;  // FLOP per compulsory byte (drawn hollow, joined by a dashed line)
  double flops = 0;              // achieved FLOP/s
};

std::string roofline_svg(const std::string& title, double peak_flops, double bandwidth,
                         const std::string& peak_label, const std::string& bandwidth_label,
                         const std::vector<RooflinePoint>& points);

}  // namespace fattn::cli
