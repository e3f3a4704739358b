import Foundation
import Persistible

// A child process for the tests of special files, permissions and injected faults: it runs one operation per line
// of standard input and prints one line of result for each, so that a test can change the world between two
// operations of one process.
//
//     PersistibleProbe [--user UID:GID] DIR
//
// Commands: "save VALUE", "load", "delete", "moveaside" (prints "moved" and the file's new name), "hold" (takes
// the lock through a FileStore write block, prints "locked", and keeps it until the next line arrives),
// "insert-without-threads VALUE" (a FileStore's async insert once the user may start no more processes or threads:
// RLIMIT_NPROC at 0, which binds users other than root, for the rest of the probe's life), "exit".
// Each prints "ok", what a load found, or the PersistenceError's reason as Swift prints it, such as
// `writeFailed(operation: "rename", errno: 5)`.
//
// Environment: PROBE_FILE_NAME is the record type's file name (default "probe"); PROBE_LOCK_TIMEOUT_MS its lock
// timeout (default: wait as long as it takes); PROBE_NO_SYNC, when set, makes its saves `.noSync`; PROBE_UMASK, in
// octal, is its umask (default: the one it inherits); PROBE_DESCRIPTIONS, when set, makes it print an error's
// description instead of its reason.
//
// With --user it drops root's privileges first, to act as another user. It exits 0 at the end of its input, 2 on
// bad arguments or when the privileges cannot be dropped.

struct ProbeRecord: Codable, Hashable, Persistible {
    var value: String

    static var fileName: String { ProcessInfo.processInfo.environment["PROBE_FILE_NAME"] ?? "probe" }

    static var archiveDurability: Durability {
        ProcessInfo.processInfo.environment["PROBE_NO_SYNC"] == nil ? .full : .noSync
    }

    static var archiveLockTimeout: Duration? {
        ProcessInfo.processInfo.environment["PROBE_LOCK_TIMEOUT_MS"].flatMap(Int.init).map { .milliseconds($0) }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func say(_ line: String) {
    // Unbuffered, so that the test reads each answer as soon as it is given.
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if let mask = ProcessInfo.processInfo.environment["PROBE_UMASK"] {
    guard let mask = mode_t(mask, radix: 8) else { fail("PROBE_UMASK expects an octal mode") }
    umask(mask)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--user" {
    guard arguments.count >= 2 else { fail("--user expects UID:GID") }
    let ids = arguments[1].split(separator: ":").compactMap { UInt32($0) }
    guard ids.count == 2 else { fail("--user expects UID:GID") }
    // The group first: once the user is not root, it may no longer change its groups.
    guard setgroups(0, nil) == 0, setgid(ids[1]) == 0, setuid(ids[0]) == 0 else {
        fail("could not become \(arguments[1]): \(String(cString: strerror(errno)))")
    }
    arguments.removeFirst(2)
}
guard arguments.count == 1 else { fail("usage: PersistibleProbe [--user UID:GID] DIR") }
let directory = URL(fileURLWithPath: arguments[0], isDirectory: true)

func run(_ command: String) -> Bool {
    let words = command.split(separator: " ", maxSplits: 1).map(String.init)
    do {
        switch words.first ?? "" {
        case "save" where words.count == 2:
            try ProbeRecord(value: words[1]).saveToFile()
            say("ok")
        case "load":
            say(try ProbeRecord.loadListFromFile().map(\.value).joined(separator: ","))
        case "delete":
            try ProbeRecord.deleteFile()
            say("ok")
        case "moveaside":
            say("moved " + (try ProbeRecord.moveFileAside()).lastPathComponent)
        case "hold":
            try FileStore<ProbeRecord>().write { _ in
                say("locked")
                _ = readLine()
            }
            say("released")
        case "insert-without-threads" where words.count == 2:
            say(insertWithoutThreads(ProbeRecord(value: words[1])))
        case "exit":
            return false
        default:
            say("unknown command: \(command)")
        }
    } catch let error as PersistenceError {
        say(ProcessInfo.processInfo.environment["PROBE_DESCRIPTIONS"] == nil ? "\(error.reason)" : error.description)
    } catch {
        say("other error: \(error)")
    }
    return true
}

/// The limit is lowered inside the task, on a thread of the pool that already runs: a pool that had to start one
/// could not.
func insertWithoutThreads(_ record: ProbeRecord) -> String {
    final class Answer: @unchecked Sendable {
        // Written by the task before it signals `done`, read after.
        var text = ""
        let done = DispatchSemaphore(value: 0)
    }
    let answer = Answer()
    let store = FileStore<ProbeRecord>(url: ProbeRecord.archiveUrl)
    Task.detached {
        var limits = rlimit(rlim_cur: 0, rlim_max: 0)
        // Glibc imports the resource as an enum case under its inner name, Darwin as a plain Int32.
        #if canImport(Darwin)
        let processes: Int32 = RLIMIT_NPROC
        #else
        let processes = Int32(__RLIMIT_NPROC.rawValue)
        #endif
        guard setrlimit(processes, &limits) == 0 else {
            answer.text = "setrlimit failed: \(String(cString: strerror(errno)))"
            answer.done.signal()
            return
        }
        do {
            try await store.insert(record)
            answer.text = "ok"
        } catch let error as PersistenceError {
            answer.text = "\(error.reason)"
        } catch {
            answer.text = "other error: \(error)"
        }
        answer.done.signal()
    }
    answer.done.wait()
    return answer.text
}

withArchiveDirectory(directory) {
    while let line = readLine(), run(line) {}
}
