#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
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
/// The whole of a file the kernel writes as it is read, read to its end: `FileManager` sometimes gave none of
/// `/proc/self/maps` on a busy machine (2 tool runs in 200).
func contents(ofProcFile path: String) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var (contents, buffer) = ([UInt8](), [UInt8](repeating: 0, count: 1 << 16))
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return contents }
        contents += buffer[..<count]
    }
}

let maps = contents(ofProcFile: "/proc/self/maps")
let lines = String(decoding: maps, as: UTF8.self).split(separator: "\n")
let libraries = lines.compactMap { $0.split(separator: "/").last }
for library in Set(libraries.filter { $0.contains("Foundation") || $0.contains("Dispatch") }).sorted() {
    print(library)
}
