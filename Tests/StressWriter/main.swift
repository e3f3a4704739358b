import Foundation
import Persistible

// A child process for the tests that need real processes and signals.
//
//     StressWriter append DIR PREFIX COUNT
//         Saves COUNT records one by one, printing each one's id once its save has returned.
//     StressWriter transact DIR PREFIX COUNT
//         Runs COUNT write blocks on a FileStore, each inserting two records and marking the previous block's
//         first record "checked".
//     StressWriter number DIR PREFIX COUNT
//         Adds COUNT records one by one, each under the next free number as its id (the largest stored id plus
//         one) in one `updateList` step, printing each id once its step has returned.
//     StressWriter hold DIR
//         Holds the lock inside a FileStore write block, printing "locked", until a line arrives on standard input.
//     StressWriter fill DIR COUNT LIMIT
//         Saves COUNT records in one array with the file size limited to LIMIT bytes, as a full disk would.
//
// With STRESS_NO_SYNC set in the environment, its saves are `.noSync`.
//
// It exits 0 on success, 1 with the error's description on standard error, and 2 on bad arguments.

/// The tests declare the same type, so both sides read and write one file format.
struct StressRecord: Codable, Hashable, Identifiable, Persistible {
    var id: String
    var payload: String

    static var fileName: String { "stress" }

    static var archiveDurability: Durability {
        ProcessInfo.processInfo.environment["STRESS_NO_SYNC"] == nil ? .full : .noSync
    }
}

func record(_ id: String) -> StressRecord {
    // Large enough that a save takes a while and a signal can land in the middle of writing the file.
    StressRecord(id: id, payload: String(repeating: "x", count: 512))
}

let arguments = CommandLine.arguments
/// The whole number at `index` of the arguments, or `nil`.
func number(at index: Int) -> Int? {
    index < arguments.count ? Int(arguments[index]) : nil
}
let mode = arguments.count > 2 ? arguments[1] : ""
let shapes: [String: (count: Int, numberAt: Int?)] = [
    "append": (5, 4), "transact": (5, 4), "number": (5, 4), "fill": (5, 3), "hold": (3, nil),
]
guard let shape = shapes[mode], arguments.count == shape.count, shape.numberAt.map({ number(at: $0) != nil }) ?? true
else {
    FileHandle.standardError.write(Data(
        "usage: StressWriter append|transact|number DIR PREFIX COUNT | fill DIR COUNT LIMIT | hold DIR\n".utf8
    ))
    exit(2)
}
let count = shape.numberAt.flatMap(number(at:)) ?? 0
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)

do {
    try withArchiveDirectory(directory) {
        switch mode {
        case "append":
            for index in 0..<count {
                let id = "\(arguments[3])-\(index)"
                try record(id).saveToFile()
                // Unbuffered, so that whoever kills this process has seen every id whose save returned.
                FileHandle.standardOutput.write(Data((id + "\n").utf8))
            }
        case "transact":
            let store = FileStore<StressRecord>()
            for block in 0..<count {
                try store.write { writer in
                    writer.insert(record("\(arguments[3])-\(block)-a"))
                    writer.insert(record("\(arguments[3])-\(block)-b"))
                    if block > 0 {
                        var previous = record("\(arguments[3])-\(block - 1)-a")
                        try writer.update(previous)
                        previous.payload = "checked"
                        writer.insert(previous)
                    }
                }
            }
        case "number":
            for _ in 0..<count {
                let id = try StressRecord.updateList { records in
                    let id = String((records.compactMap { Int($0.id) }.max() ?? 0) + 1)
                    records.append(StressRecord(id: id, payload: arguments[3]))
                    return id
                }
                FileHandle.standardOutput.write(Data((id + "\n").utf8))
            }
        case "hold":
            try FileStore<StressRecord>().write { _ in
                FileHandle.standardOutput.write(Data("locked\n".utf8))
                _ = readLine()
            }
        case "fill":
            guard let limit = rlim_t(arguments[4]) else { exit(2) }
            // Past the limit, write fails with EFBIG instead of the process being killed by SIGXFSZ.
            signal(SIGXFSZ, SIG_IGN)
            var limits = rlimit(rlim_cur: limit, rlim_max: limit)
            // Glibc imports the resource as an enum case, Darwin as a plain Int32.
            #if canImport(Darwin)
            let fileSize: Int32 = RLIMIT_FSIZE
            #else
            let fileSize = Int32(RLIMIT_FSIZE.rawValue)
            #endif
            guard setrlimit(fileSize, &limits) == 0 else { exit(2) }
            try (0..<count).map { record("fill-\($0)") }.saveToFile()
        default:
            exit(2)
        }
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
