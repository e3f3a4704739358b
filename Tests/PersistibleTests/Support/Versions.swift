import Foundation
import Persistible

// Earlier and later versions of the same models, each frozen as the version that wrote a fixture in
// Fixtures/Evolution. Versions of one model share a file name, as one app's versions would.

/// A field added with a default: `priority`.
enum AddedField {
    struct V1: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        static var fileName: String { "tasks" }
    }

    struct V2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var priority: Int = 0
        static var fileName: String { "tasks" }
        static var archiveDefaults: V2? { V2(id: "", title: "") }
    }
}

/// An optional field added: `note`.
enum OptionalAdded {
    typealias V1 = AddedField.V1

    struct V2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var note: String?
        static var fileName: String { "tasks" }
    }
}

/// A field renamed from `name` to `title`, then a field added: three versions, chained.
enum Renamed {
    struct V1: Codable, Hashable, Identifiable {
        var id: String
        var name: String
    }

    /// Version 1 as the app that wrote it declared it.
    struct V1Persistible: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var name: String
        static var fileName: String { "tasks" }
    }

    struct V2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        static var fileName: String { "tasks" }
        /// Declared once, with V2, and reused by V3.
        static let fromV1 = ArchiveMigration<V2>.from(V1.self) { V2(id: $0.id, title: $0.name) }
        static var archiveMigrations: [ArchiveMigration<V2>] { [fromV1] }
    }

    struct V3: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var tags: [String]
        static var fileName: String { "tasks" }

        init(id: String, title: String, tags: [String]) {
            self.id = id
            self.title = title
            self.tags = tags
        }

        init(_ v2: V2) {
            self.init(id: v2.id, title: v2.title, tags: [])
        }

        static var archiveMigrations: [ArchiveMigration<V3>] {
            [.from(V2.self, V3.init), V2.fromV1.then(V3.init)]
        }
    }
}

/// A field removed: `legacy`.
enum Removed {
    struct V1: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var title: String
        var legacy: String
        static var fileName: String { "tasks" }
    }

    typealias V2 = AddedField.V1
}

/// A field whose type changed: an estimate written as "3h", then as a number of hours.
enum TypeChanged {
    struct V1: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var estimate: String
        static var fileName: String { "tasks" }
    }

    struct V2: Codable, Hashable, Identifiable, Persistible {
        var id: String
        var estimate: Int
        static var fileName: String { "tasks" }

        struct BadEstimate: Error, CustomStringConvertible {
            var text: String
            var description: String { "'\(text)' is not a number of hours" }
        }

        static var archiveMigrations: [ArchiveMigration<V2>] {
            [.from(V1.self) { old in
                guard let hours = Int(old.estimate.dropLast()), old.estimate.hasSuffix("h") else {
                    throw BadEstimate(text: old.estimate)
                }
                return V2(id: old.id, estimate: hours)
            }]
        }
    }
}

/// An enum case added in version 2, read by version 1.
enum EnumCase {
    struct V1: Codable, Hashable, Identifiable, Persistible {
        enum State: String, Codable { case open, done }
        var id: String
        var state: State
        static var fileName: String { "tasks" }
    }

    /// Version 1, built to skip the records it cannot read and keep them.
    struct V1Skipping: Codable, Hashable, Identifiable, Persistible {
        typealias State = V1.State
        var id: String
        var state: State
        static var fileName: String { "tasks" }
        static var archiveSkipsUnreadableRecords: Bool { true }
    }

    struct V2: Codable, Hashable, Identifiable, Persistible {
        enum State: String, Codable { case open, done, archived }
        var id: String
        var state: State
        static var fileName: String { "tasks" }
    }
}

/// A nested struct that gained a field with a default: `address.city`.
enum Nested {
    struct V1: Codable, Hashable, Identifiable, Persistible {
        struct Address: Codable, Hashable { var street: String }
        var id: String
        var address: Address
        static var fileName: String { "contacts" }
    }

    struct V2: Codable, Hashable, Identifiable, Persistible {
        struct Address: Codable, Hashable {
            var street: String
            var city: String = ""
        }
        var id: String
        var address: Address
        static var fileName: String { "contacts" }
        static var archiveDefaults: V2? { V2(id: "", address: Address(street: "")) }
    }
}

/// The bytes of a fixture, as checked in.
func fixture(_ name: String) throws -> Data {
    // This file is in Support/, beside Fixtures/.
    let support = URL(fileURLWithPath: #filePath, isDirectory: false).deletingLastPathComponent()
    return try Data(contentsOf: support.deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Evolution/\(name).json", isDirectory: false))
}

/// Puts a fixture in place as `type`'s file.
func install<T: Persistible>(_ name: String, as type: T.Type) throws -> Data {
    try install(bytes: fixture(name), as: type)
}

/// Puts `json` in place as `type`'s file, as an earlier version or a person left it.
@discardableResult
func install<T: Persistible>(json: String, as type: T.Type) throws -> Data {
    try install(bytes: Data(json.utf8), as: type)
}

private func install<T: Persistible>(bytes: Data, as type: T.Type) throws -> Data {
    try FileManager.default.createDirectory(at: T.archiveDirectory, withIntermediateDirectories: true)
    try bytes.write(to: T.archiveUrl)
    return bytes
}

/// What the package's encoder writes for `values`: the bytes of a file in the current format.
func currentFormat<T: Persistible & Encodable>(_ values: [T]) throws -> Data {
    storedForm(try T.archiveEncoder.encode(values))
}

/// A single value of a type without identity, whose second version renamed `theme` to `colorScheme`: `settings-v2`.
enum RenamedSettings {
    struct V1: Codable, Hashable, Persistible {
        var volume: Int
        static var fileName: String { "settings" }
    }

    struct V1WithDefaults: Codable, Hashable, Persistible {
        var theme: String
        var volume: Int
        static var fileName: String { "settings" }
        static var archiveDefaults: V1WithDefaults? { V1WithDefaults(theme: "light", volume: 5) }
    }

    struct V2: Codable, Hashable, Persistible {
        var colorScheme: String
        var volume: Int
        static var fileName: String { "settings" }
    }
}
