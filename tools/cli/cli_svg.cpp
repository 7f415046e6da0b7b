#include "cli_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fattn::cli {
namespace {

constexpr double kWidth = 760, kHeight = 500;
constexpr double kLeft = 80, kRight = 30, kTop = 50, kBottom = 60;
constexpr double kMarginDecades = 0.5;  // room around the data on each log axis
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// "1e12" → "1 T"; the axis labels of FLOP/s.
std::string si(double value) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int prefix = 0;
  while (value >= 1000 && prefix + 1 < static_cast<int>(std::size(kPrefixes))) value /= 1000, ++prefix;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g %s", value, kPrefixes[prefix]);
  return buffer;
}

}  // namespace

std::string roofline_svg(const std::string& title, double peak_flops, double bandwidth,
                         const std::string& peak_label, const std::string& bandwidth_label,
                         const std::vector<RooflinePoint>& points) {
  const double ridge = peak_flops / bandwidth;
  double x_lo = ridge, x_hi = ridge, y_lo = peak_flops, y_hi = peak_flops;
  for (const RooflinePoint& p : points) {
    for (double x : {p.intensity, p.minimal_intensity}) {
      if (x > 0) x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
    }
    if (p.flops > 0) y_lo = std::min(y_lo, p.flops), y_hi = std::max(y_hi, p.flops);
  }
  const double lx0 = std::floor(std::log10(x_lo) - kMarginDecades),
               lx1 = std::ceil(std::log10(x_hi) + kMarginDecades);
  const double ly0 = std::floor(std::log10(y_lo) - kMarginDecades),
               ly1 = std::ceil(std::log10(y_hi) + kMarginDecades);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (std::log10(x) - lx0) / (lx1 - lx0) * plot_w; };
  auto py = [&](double y) { return kTop + plot_h - (std::log10(y) - ly0) / (ly1 - ly0) * plot_h; };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(kWidth) + "\" height=\"" +
                    number(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + number(kWidth / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" +
         escape(title) + "</text>\n";
  for (double d = lx0; d <= lx1; ++d) {
    const double x = px(std::pow(10.0, d));
    svg += "<line x1=\"" + number(x) + "\" y1=\"" + number(kTop) + "\" x2=\"" + number(x) + "\" y2=\"" +
           number(kTop + plot_h) + "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + number(x) + "\" y=\"" + number(kTop + plot_h + 18) + "\" text-anchor=\"middle\">" +
           si(std::pow(10.0, d)) + "</text>\n";
  }
  for (double d = ly0; d <= ly1; ++d) {
    const double y = py(std::pow(10.0, d));
    svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(y) + "\" x2=\"" + number(kLeft + plot_w) +
           "\" y2=\"" + number(y) + "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + number(kLeft - 6) + "\" y=\"" + number(y + 4) + "\" text-anchor=\"end\">" +
           si(std::pow(10.0, d)) + "</text>\n";
  }
  svg += "<rect x=\"" + number(kLeft) + "\" y=\"" + number(kTop) + "\" width=\"" + number(plot_w) +
         "\" height=\"" + number(plot_h) + "\" fill=\"none\" stroke=\"black\"/>\n";
  svg += "<text x=\"" + number(kLeft + plot_w / 2) + "\" y=\"" + number(kHeight - 18) +
         "\" text-anchor=\"middle\">arithmetic intensity (FLOP per DRAM byte)</text>\n";
  svg += "<text transform=\"translate(18," + number(kTop + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">FLOP/s</text>\n";
  // The roof: bandwidth × intensity up to the ridge, then the peak.
  const double x_start = std::pow(10.0, lx0), x_end = std::pow(10.0, lx1);
  const double y_start = std::max(x_start * bandwidth, std::pow(10.0, ly0));
  const double x_at_start = y_start / bandwidth;
  svg += "<polyline fill=\"none\" stroke=\"black\" stroke-width=\"2\" points=\"" + number(px(x_at_start)) +
         "," + number(py(y_start)) + " " + number(px(ridge)) + "," + number(py(peak_flops)) + " " +
         number(px(x_end)) + "," + number(py(peak_flops)) + "\"/>\n";
  svg += "<text x=\"" + number(px(x_end) - 6) + "\" y=\"" + number(py(peak_flops) - 6) +
         "\" text-anchor=\"end\">" + escape(peak_label) + "</text>\n";
  svg += "<text x=\"" + number(px(ridge) - 8) + "\" y=\"" + number(py(peak_flops) + 16) +
         "\" text-anchor=\"end\">" + escape(bandwidth_label) + "</text>\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const RooflinePoint& p = points[i];
    if (p.intensity <= 0 || p.flops <= 0) continue;
    const char* color = kColors[i % std::size(kColors)];
    const double x = px(p.intensity), y = py(p.flops);
    if (p.minimal_intensity > 0 && p.minimal_intensity != p.intensity) {
      const double xm = px(p.minimal_intensity);
      svg += "<line x1=\"" + number(x) + "\" y1=\"" + number(y) + "\" x2=\"" + number(xm) + "\" y2=\"" +
             number(y) + "\" stroke=\"" + color + "\" stroke-dasharray=\"4 3\"/>\n";
      svg += "<circle cx=\"" + number(xm) + "\" cy=\"" + number(y) + "\" r=\"5\" fill=\"white\" stroke=\"" +
             color + "\"/>\n";
    }
    svg += "<circle cx=\"" + number(x) + "\" cy=\"" + number(y) + "\" r=\"6\" fill=\"" + color + "\"/>\n";
    svg += "<text x=\"" + number(x + 9) + "\" y=\"" + number(y - 8) + "\" fill=\"" + color + "\">" +
           escape(p.label) + "</text>\n";
  }
  svg += "<text x=\"" + number(kLeft + 8) + "\" y=\"" + number(kTop + plot_h - 8) +
         "\" fill=\"#555\">filled: DRAM bytes of the traffic model; hollow: compulsory bytes only</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace fattn::cli
