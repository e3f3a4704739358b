import Foundation
import Persistible

// A child process that plays one version of an app, for the tests of files shared by two versions at once.
//
//     VersionedWriter v1|v2 DIR PREFIX COUNT
//         Runs COUNT FileStore write blocks on DIR/tasks.json. Each inserts the record PREFIX-i and updates the
//         title of a record written by the other version, when there is one. Version 2 knows `priority` and gives
//         its records priority i + 1; version 1 does not know it.
//
// It exits 0 on success, 1 with the error's description on standard error, and 2 on bad arguments.

/// Version 1 of the task: no priority.
struct TaskV1: Codable, Hashable, Identifiable {
    var id: String
    var title: String
}

/// Version 2 of the task: a priority, with a default for version 1's records.
struct TaskV2: Codable, Hashable, Identifiable, Persistible {
    var id: String
    var title: String
    var priority: Int = 0
    static var archiveDefaults: TaskV2? { TaskV2(id: "", title: "") }
}

let arguments = CommandLine.arguments
guard arguments.count == 5, ["v1", "v2"].contains(arguments[1]), let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: VersionedWriter v1|v2 DIR PREFIX COUNT\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: arguments[2]).appendingPathComponent("tasks.json")
let prefix = arguments[3]

do {
    for index in 0..<count {
        if arguments[1] == "v1" {
            try FileStore<TaskV1>(url: url).write { writer in
                writer.insert(TaskV1(id: "\(prefix)-\(index)", title: "new"))
                if var other = writer.all().first(where: { !$0.id.hasPrefix(prefix) && $0.title == "new" }) {
                    other.title = "touched by \(prefix)"
                    try writer.update(other)
                }
            }
        } else {
            try FileStore<TaskV2>(url: url).write { writer in
                writer.insert(TaskV2(id: "\(prefix)-\(index)", title: "new", priority: index + 1))
                if var other = writer.all().first(where: { !$0.id.hasPrefix(prefix) && $0.title == "new" }) {
                    other.title = "touched by \(prefix)"
                    try writer.update(other)
                }
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
