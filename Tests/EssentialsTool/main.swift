#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Persistible

// A tool built as a user's would be on Linux, on the package and FoundationEssentials alone: it saves a record,
// saves another, loads them, and prints the Foundation and Dispatch libraries its process mapped, one a line.
//
//     PersistibleEssentialsTool DIR

struct Note: Codable, Hashable, Identifiable, Persistible {
    var id: Int
    var text: String

    static var archiveDirectory: URL { URL(fileURLWithPath: CommandLine.arguments[1]) }
}

_ = try Note(id: 1, text: "one").saveToFile()
_ = try [Note(id: 2, text: "two")].saveToFile()
print("loaded", try Note.loadListFromFile().map(\.text).joined(separator: " "))
let maps = FileManager.default.contents(atPath: "/proc/self/maps") ?? Data()
let lines = String(decoding: maps, as: UTF8.self).split(separator: "\n")
let libraries = lines.compactMap { $0.split(separator: "/").last }
for library in Set(libraries.filter { $0.contains("Foundation") || $0.contains("Dispatch") }).sorted() {
    print(library)
}
