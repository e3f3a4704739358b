import Foundation
import Persistible

// A child process for the tests of updates across processes and of the platform's directories.
//
//     SettingsWriter increment DIR COUNT
//         Adds one to the counter in DIR with update(default:_:), COUNT times, then prints the last value it wrote.
//     SettingsWriter directories
//         Prints, one per line as KIND=PATH, each ArchiveDirectory kind with the default application and with the
//         application "Named", the directory of a type that uses the default, and that of a type that declares
//         the configuration directory.
//
// It exits 0 on success, 1 with the error's description on standard error, and 2 on bad arguments.

/// The tests declare the same type, so both sides read and write one file format.
struct SharedCounter: Codable, Hashable, Persistible {
    var value: Int
}

struct DefaultLocated: Codable, Hashable, Persistible {}

struct ConfigurationLocated: Codable, Hashable, Persistible {
    static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "Named") }
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("increment", 3):
        guard let count = Int(arguments[2]) else { exit(2) }
        let last = try withArchiveDirectory(URL(fileURLWithPath: arguments[1], isDirectory: true)) {
            var last = SharedCounter(value: 0)
            for _ in 0..<count {
                last = try SharedCounter.update(default: SharedCounter(value: 0)) { $0.value += 1 }
            }
            return last
        }
        print(last.value)
    case ("directories", 1):
        print("data=\(ArchiveDirectory.data().path)")
        print("configuration=\(ArchiveDirectory.configuration().path)")
        print("caches=\(ArchiveDirectory.caches().path)")
        print("named-data=\(ArchiveDirectory.data(application: "Named").path)")
        print("named-configuration=\(ArchiveDirectory.configuration(application: "Named").path)")
        print("named-caches=\(ArchiveDirectory.caches(application: "Named").path)")
        print("default=\(DefaultLocated.archiveDirectory.path)")
        print("declared=\(ConfigurationLocated.archiveDirectory.path)")
    default:
        FileHandle.standardError.write(Data("usage: SettingsWriter increment DIR COUNT | directories\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
