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

/// Progress on standard error, so that standard output carries only the report.
func progress(_ message: String) {
    printError(message)
}
