/// Runs one repetition of each contender, starting each round with the next one.
///
/// Interleaving makes a burst of machine noise hit every contender alike instead of ruining one contender's whole
/// series; rotating the order keeps any one contender from always inheriting the page cache or the writeback
/// left by the same neighbour.
func interleave(round: Int, _ contenders: [() throws -> Void]) throws {
    for offset in contenders.indices {
        try contenders[(round + offset) % contenders.count]()
    }
}

/// A workload found the files in a state its measurement cannot be trusted from.
struct WorkloadFailure: Error, CustomStringConvertible {
    var description: String
}

/// Progress on standard error, so that standard output carries only the report.
func progress(_ message: String) {
    printError(message)
}
