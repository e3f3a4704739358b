import Foundation
import Persistible

// A child process that changes a watched file in each of the ways the watching tests expect to see.
//
//     ChangeWriter save DIR NAME NUMBER      saves one value with saveToFile
//     ChangeWriter burst DIR COUNT           saves COUNT values one by one, as fast as it can
//     ChangeWriter insert DIR NAME NUMBER    inserts one value with a FileStore
//     ChangeWriter replace DIR NAME NUMBER   makes the file hold one value with overwriteFile
//     ChangeWriter remove DIR NAME           removes the values with that name with removeFromFile(where:)
//     ChangeWriter delete DIR                deletes the file with deleteFile
//     ChangeWriter aside DIR                 moves the file aside, to watched.json.aside
//     ChangeWriter moveaside DIR             moves the file aside with moveFileAside
//     ChangeWriter rename DIR TEXT           writes TEXT to a new file and renames it over the file, as editors do
//     ChangeWriter overwrite DIR TEXT        writes TEXT into the file itself, in place
//     ChangeWriter link LINK DESTINATION     points the symbolic link LINK at DESTINATION, atomically
//
// Each prints "done" once its change is made. It exits 0 on success, 1 with the error on standard error, and 2 on
// bad arguments.

/// The tests declare the same type, so both sides read and write one file format.
struct Watched: Codable, Hashable, Persistible {
    var name: String
    var number: Int

    static var fileName: String { "watched" }
    static var archiveDurability: Durability { .noSync }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ChangeWriter: \(message)\n".utf8))
    exit(1)
}

/// Writes `text` to `path` in place, without replacing the file.
func overwrite(_ path: String, with text: String) {
    let descriptor = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { fail("open \(path): \(String(cString: strerror(errno)))") }
    let bytes = Array(text.utf8)
    guard write(descriptor, bytes, bytes.count) == bytes.count else {
        fail("write: \(String(cString: strerror(errno)))")
    }
    close(descriptor)
}

/// Replaces `path` by renaming `from` over it.
func move(_ from: String, over path: String) {
    guard rename(from, path) == 0 else { fail("rename \(from): \(String(cString: strerror(errno)))") }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    let usage = "usage: ChangeWriter save|burst|insert|replace|remove|delete|aside|moveaside|rename|overwrite|link"
        + " …\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
let file = directory.appendingPathComponent("watched.json").path

do {
    try withArchiveDirectory(directory) {
        switch (arguments[0], arguments.count) {
        case ("save", 4):
            guard let number = Int(arguments[3]) else { exit(2) }
            try Watched(name: arguments[2], number: number).saveToFile()
        case ("burst", 3):
            guard let count = Int(arguments[2]) else { exit(2) }
            for number in 1...count {
                try Watched(name: "burst", number: number).saveToFile()
            }
        case ("insert", 4):
            guard let number = Int(arguments[3]) else { exit(2) }
            try FileStore<Watched>().insert(Watched(name: arguments[2], number: number))
        case ("replace", 4):
            guard let number = Int(arguments[3]) else { exit(2) }
            try Watched(name: arguments[2], number: number).overwriteFile()
        case ("remove", 3):
            let name = arguments[2]
            try Watched.removeFromFile { $0.name == name }
        case ("delete", 2):
            try Watched.deleteFile()
        case ("aside", 2):
            move(file, over: file + ".aside")
        case ("moveaside", 2):
            try Watched.moveFileAside()
        case ("rename", 3):
            let temporary = directory.appendingPathComponent(".watched.json.swp").path
            overwrite(temporary, with: arguments[2])
            move(temporary, over: file)
        case ("overwrite", 3):
            overwrite(file, with: arguments[2])
        case ("link", 3):
            let link = arguments[1]
            let temporary = link + ".new-link"
            guard symlink(arguments[2], temporary) == 0 else { fail("symlink: \(String(cString: strerror(errno)))") }
            move(temporary, over: link)
        default:
            exit(2)
        }
    }
} catch {
    fail("\(error)")
}
FileHandle.standardOutput.write(Data("done\n".utf8))
