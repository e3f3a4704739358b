import Foundation

/// A line chart on logarithmic axes, written as SVG by hand so that the benchmark needs no dependency.
struct LogLogChart {
    struct Series {
        var name: String
        var color: String
        var dashed: Bool
        var points: [(x: Double, y: Double)]
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var series: [Series]
    var formatX: (Double) -> String
    var formatY: (Double) -> String

    private let width = 860.0
    private let height = 540.0
    private let left = 90.0
    /// Room for the legend, whose longest names are about 30 characters.
    private let right = 280.0
    private let top = 50.0
    private let bottom = 60.0

    init(
        title: String, xLabel: String, yLabel: String, series: [Series],
        formatX: @escaping (Double) -> String, formatY: @escaping (Double) -> String
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.formatX = formatX
        self.formatY = formatY
    }

    var svg: String {
        let points = series.flatMap(\.points).filter { $0.x > 0 && $0.y > 0 && $0.y.isFinite }
        guard !points.isEmpty else { return emptyChart }
        // Whole decades, so that every gridline is a power of ten and reads at a glance.
        let xRange = Self.decades(points.map(\.x))
        let yRange = Self.decades(points.map(\.y))
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func px(_ x: Double) -> Double { left + (log10(x) - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * plotWidth }
        func py(_ y: Double) -> Double { top + plotHeight - (log10(y) - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound) * plotHeight }

        var out = [
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(n(width))" height="\#(n(height))" "#
                + #"viewBox="0 0 \#(n(width)) \#(n(height))" "#
                + #"font-family="Helvetica, Arial, sans-serif" font-size="13">"#,
            element("rect", ["width": "100%", "height": "100%", "fill": "white"]),
            element("text", ["x": n(left), "y": "28", "font-size": "16", "font-weight": "bold"], text: title),
        ]
        for decade in Int(xRange.lowerBound)...Int(xRange.upperBound) {
            let value = pow(10, Double(decade))
            let x = n(px(value))
            out.append(element("line", ["x1": x, "y1": n(top), "x2": x, "y2": n(top + plotHeight), "stroke": "#ddd"]))
            out.append(element("text", ["x": x, "y": n(top + plotHeight + 20), "text-anchor": "middle"], text: formatX(value)))
        }
        for decade in Int(yRange.lowerBound)...Int(yRange.upperBound) {
            let value = pow(10, Double(decade))
            let y = py(value)
            out.append(element("line", ["x1": n(left), "y1": n(y), "x2": n(left + plotWidth), "y2": n(y), "stroke": "#ddd"]))
            out.append(element("text", ["x": n(left - 8), "y": n(y + 4), "text-anchor": "end"], text: formatY(value)))
        }
        out.append(element("rect", [
            "x": n(left), "y": n(top), "width": n(plotWidth), "height": n(plotHeight), "fill": "none", "stroke": "#444",
        ]))
        out.append(element("text", ["x": n(left + plotWidth / 2), "y": n(height - 15), "text-anchor": "middle"], text: xLabel))
        out.append(element("text", [
            "transform": "translate(20 \(n(top + plotHeight / 2))) rotate(-90)", "text-anchor": "middle",
        ], text: yLabel))

        for line in series {
            let visible = line.points.filter { $0.x > 0 && $0.y > 0 && $0.y.isFinite }
            guard !visible.isEmpty else { continue }
            var attributes = [
                "points": visible.map { "\(n(px($0.x))),\(n(py($0.y)))" }.joined(separator: " "),
                "fill": "none", "stroke": line.color, "stroke-width": "2.5",
            ]
            if line.dashed { attributes["stroke-dasharray"] = "7 5" }
            out.append(element("polyline", attributes))
            for point in visible {
                out.append(element("circle", ["cx": n(px(point.x)), "cy": n(py(point.y)), "r": "4", "fill": line.color]))
            }
        }

        let legendX = left + plotWidth + 20
        for (index, line) in series.enumerated() {
            let y = top + 10 + Double(index) * 24
            var attributes = [
                "x1": n(legendX), "y1": n(y), "x2": n(legendX + 30), "y2": n(y), "stroke": line.color, "stroke-width": "2.5",
            ]
            if line.dashed { attributes["stroke-dasharray"] = "7 5" }
            out.append(element("line", attributes))
            out.append(element("text", ["x": n(legendX + 38), "y": n(y + 4)], text: line.name))
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// One element; attributes sorted so that the same chart always gives the same bytes.
    private func element(_ name: String, _ attributes: [String: String], text: String? = nil) -> String {
        let rendered = attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\"\(escape($0.value))\"" }.joined()
        guard let text else { return "<\(name)\(rendered)/>" }
        return "<\(name)\(rendered)>\(escape(text))</\(name)>"
    }

    private var emptyChart: String {
        #"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="60"><text x="10" y="35">No data</text></svg>"# + "\n"
    }

    private static func decades(_ values: [Double]) -> ClosedRange<Double> {
        let low = floor(log10(values.min()!))
        let high = ceil(log10(values.max()!))
        return low...max(high, low + 1)
    }

    private func n(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}

extension LogLogChart {
    /// Time per append against the file's size, for every contender of the append workload.
    static func append(_ results: [AppendResult]) -> LogLogChart {
        func line(_ name: String, _ color: String, dashed: Bool, _ samples: (AppendResult) -> Samples) -> Series {
            Series(name: name, color: color, dashed: dashed, points: results.map { (Double($0.n), samples($0).median) })
        }
        return LogLogChart(
            title: "Appending one value to a file of n records",
            xLabel: "records in the file (n)",
            yLabel: "time per append (median)",
            series: [
                line("Persistible, durable", "#1f77b4", dashed: false, \.packageDurable),
                line("Persistible, no-sync", "#1f77b4", dashed: true, \.packageNoSync),
                line("Article (never flushes)", "#d62728", dashed: false, \.article),
                line("I/O floor, durable", "#555555", dashed: false, \.floorDurable),
                line("I/O floor, no-sync", "#555555", dashed: true, \.floorNoSync),
            ],
            formatX: formatShortCount,
            formatY: formatDecadeDuration
        )
    }
}

extension LogLogChart {
    /// Time per durable append against the file's size on each file system, with the floors and SQLite.
    static func appendByFileSystem(_ results: [CloneAppendResult]) -> LogLogChart {
        let volumes = results.map(\.volume).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let colors = ["#1f77b4", "#2ca02c", "#9467bd"]
        var series: [Series] = []
        for (index, volume) in volumes.enumerated() {
            let rows = results.filter { $0.volume == volume }
            func line(_ name: String, _ color: String, dashed: Bool, _ samples: (CloneAppendResult) -> Samples) -> Series {
                Series(name: name, color: color, dashed: dashed, points: rows.map { (Double($0.n), samples($0).median) })
            }
            let color = colors[index % colors.count]
            series.append(line("Persistible, \(volume)", color, dashed: false, \.package))
            series.append(line("Rewrite floor, \(volume)", color, dashed: true, \.rewriteFloor))
            if index == volumes.count - 1 {
                series.append(line("In-place floor, \(volume)", "#555555", dashed: true, \.inPlaceFloor))
            }
            if index == 0 {
                series.append(line("SQLite WAL, \(volume)", "#ff7f0e", dashed: false, \.sqliteWAL))
                series.append(line("SQLite DELETE, \(volume)", "#d62728", dashed: false, \.sqliteDelete))
            }
        }
        return LogLogChart(
            title: "One durable append onto a file of n records",
            xLabel: "records in the file (n)",
            yLabel: "time per append (median)",
            series: series,
            formatX: formatShortCount,
            formatY: formatDecadeDuration
        )
    }
}
