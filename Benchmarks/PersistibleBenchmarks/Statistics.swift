/// The repetitions of one measurement.
///
/// Medians, not means: a repetition that met a page-cache flush or a scheduler hiccup moves a mean a lot and a
/// median not at all.
struct Samples: Sendable {
    private(set) var seconds: [Double] = []

    mutating func add(_ value: Double) {
        seconds.append(value)
    }

    var count: Int { seconds.count }

    var median: Double {
        Self.median(of: seconds)
    }

    /// The value below which `fraction` of the repetitions fall: the nearest rank, with no interpolation.
    func percentile(_ fraction: Double) -> Double {
        guard !seconds.isEmpty else { return .nan }
        let sorted = seconds.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// The median absolute deviation as a fraction of the median: how far a typical repetition strays.
    var relativeSpread: Double {
        let center = median
        guard center > 0 else { return 0 }
        return Self.median(of: seconds.map { abs($0 - center) }) / center
    }

    private static func median(of values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Package time over reference time: below 1 the package is faster.
func ratio(_ package: Samples, _ reference: Samples) -> Double {
    package.median / reference.median
}
