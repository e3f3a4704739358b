import Foundation
import Persistible

// The libFuzzer entry point of the differential (Tests/PersistibleTests/Differential): each input is the bytes of a
// file, loaded, looked up and written through the package and read by Foundation for every model type. A difference
// that no open defect explains stops the run, and libFuzzer keeps the input; one that an open defect explains is
// counted, and its first input kept in `FUZZ_KNOWN_DIRECTORY` when that is set.

private let check: DifferentialCheck = {
    var template = Array((NSTemporaryDirectory() + "/persistible-fuzz.XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary directory: errno \(errno)") }
    let directory = URL(fileURLWithPath: String(cString: made), isDirectory: true)
    atexit { FuzzState.removeDirectory() }
    FuzzState.directory = directory
    return DifferentialCheck(directory: directory)
}()

private enum FuzzState {
    // libFuzzer calls the entry point from one thread, one input at a time.
    nonisolated(unsafe) static var directory: URL?
    nonisolated(unsafe) static var knownSeen: [Difference.Known: Int] = [:]

    static func removeDirectory() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        for (known, count) in knownSeen.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            report("known difference (\(known.rawValue)): \(count) inputs")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Data(bytes: start, count: count)
    let differences = check.differences(in: bytes)
    for known in Set(differences.compactMap(\.known)) {
        FuzzState.knownSeen[known, default: 0] += 1
        guard FuzzState.knownSeen[known] == 1 else { continue }
        report("first known difference (\(known.rawValue)): \(differences.first { $0.known == known }!)")
        if let folder = ProcessInfo.processInfo.environment["FUZZ_KNOWN_DIRECTORY"] {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try? bytes.write(to: URL(fileURLWithPath: folder).appendingPathComponent("\(known)"))
        }
    }
    let unknown = differences.filter { $0.known == nil }
    guard unknown.isEmpty else {
        for difference in unknown { report("difference: \(difference)") }
        fatalError("\(unknown.count) differences from Foundation on this input")
    }
    return 0
}

/// Writes a line to the standard error, where libFuzzer writes its own.
private func report(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
