/// How big and how often: the sizes of the files and the repetitions of each measurement.
///
/// Cheap measurements get many repetitions, since a short one is the most easily disturbed and repeating it costs
/// little; expensive ones get few, to keep a full run within a few minutes.
struct Plan {
    let quick: Bool

    var name: String { quick ? "quick" : "full" }

    var bulkSizes: [Int] { quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] }

    var appendSizes: [Int] { quick ? [100, 1_000, 10_000] : [100, 1_000, 10_000, 100_000] }

    func bulkRepetitions(n: Int) -> Int {
        if quick { return 3 }
        return n >= 100_000 ? 7 : 15
    }

    func appendRepetitions(n: Int) -> Int {
        if quick { return 5 }
        switch n {
        case ..<10_000: return 21
        case ..<100_000: return 15
        default: return 11
        }
    }

    /// The article's append decodes and re-encodes the whole file, about a second at 100,000 records.
    func articleRepetitions(n: Int) -> Int {
        if quick { return 3 }
        switch n {
        case ..<10_000: return 15
        case ..<100_000: return 7
        default: return 3
        }
    }

    /// A load that fills defaults, and an update of one record, on files of these sizes.
    var evolutionSizes: [Int] { quick ? [10_000] : [100_000] }

    let contentionProcesses = 4

    var contentionAppendsPerProcess: Int { quick ? 25 : 250 }

    var contentionRepetitions: Int { quick ? 2 : 5 }

    var storeQuerySizes: [Int] { quick ? [1_000, 10_000] : [10_000, 100_000] }

    /// A query over 100,000 records takes tens of milliseconds for each of its three contenders.
    func storeQueryRepetitions(n: Int) -> Int {
        if quick { return 5 }
        return n >= 100_000 ? 15 : 31
    }

    /// The records the file holds before the write workload's inserts, and how many it inserts.
    var storeWriteRecords: Int { quick ? 100 : 1_000 }

    var storeWriteChanges: Int { quick ? 100 : 1_000 }

    /// The single inserts make one durable write each, about a second per repetition at 1,000.
    var storeWriteRepetitions: Int { quick ? 3 : 9 }

    /// The file sizes of the append workload run on each file system, ext4 and XFS with reflink.
    var cloneAppendSizes: [Int] { quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] }

    /// Appends that clone cost well under a millisecond and vary with the disk's mood: many repetitions.
    var cloneAppendRepetitions: Int { quick ? 7 : 41 }

    /// The grown-file workload: a file of this many records grown by this many no-sync appends, of which the first
    /// and the last `grownFileWindow` are timed. 20,000 appends grow it by about 2.3 MB, 560 blocks of 4 KiB.
    let grownFileSeed = 1_000
    var grownFileAppends: Int { quick ? 4_000 : 20_000 }
    var grownFileWindow: Int { quick ? 500 : 1_000 }

    /// A cold append decodes the whole file, about a third of a second at 100,000 records.
    var coldAppendRepetitions: Int { quick ? 2 : 5 }

    /// The saves whose latency the watch workload measures, in each of its two rhythms.
    var watchLatencySaves: Int { quick ? 50 : 300 }

    /// The file sizes of the command-line section, each call a process of its own.
    var coldCommandSizes: [Int] { quick ? [1_000] : [1_000, 10_000, 100_000] }

    /// Rounds of the command-line section: at 100,000 records a round starts four processes that read the file.
    var coldCommandRepetitions: Int { quick ? 3 : 15 }

    /// The size of each document shape's file; a load of 10 MB takes a few hundred milliseconds.
    var shapeFileBytes: Int { quick ? 1_000_000 : 10_000_000 }

    var shapeRepetitions: Int { quick ? 3 : 9 }
}
