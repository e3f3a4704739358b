import Foundation

/// Times one call on the monotonic clock, which wall-clock adjustments cannot skew.
enum Stopwatch {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        try ContinuousClock().measure(body).seconds
    }
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
}

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

/// Runs one repetition of each contender, in an order of its own each round.
///
/// Interleaving makes a burst of machine noise hit every contender alike instead of ruining one contender's whole
/// series. The order is shuffled, the same way in every run, so that each contender follows each other one about
/// equally often: what a contender leaves behind (the page cache it fills, the writeback or the log it leaves the
/// file system to flush) then slows every other contender alike. Rotating one order would not do: each contender
/// would always follow the same neighbour.
func interleave(round: Int, _ contenders: [() throws -> Void]) throws {
    var generator = SplitMix64(seed: UInt64(round))
    for index in contenders.indices.shuffled(using: &generator) {
        try contenders[index]()
    }
}

/// The orders are drawn from the benchmark's own generator, with the round as the seed.
extension SplitMix64: RandomNumberGenerator {}

/// A workload found the files in a state its measurement cannot be trusted from.
struct WorkloadFailure: Error, CustomStringConvertible {
    var description: String
}

/// Fails the run unless `condition` holds: a contender that silently did less than its work would look fast.
func expect(_ condition: Bool, _ workload: String, _ message: @autoclosure () -> String) throws {
    guard condition else { throw WorkloadFailure(description: "\(workload): \(message())") }
}

/// Progress on standard error, so that standard output carries only the report.
func progress(_ message: String) {
    printError(message)
}
