import Foundation

/// The reference for bulk saves and loads: what an app would write with Foundation alone, in the package's format.
///
/// `.atomic` gives the same all-or-nothing replacement as the package, without the lock and without flushing, so
/// the ratio shows what the package's safety and bookkeeping cost on top of encoding and writing.
enum FoundationReference {
    static func save(_ records: [Record], to url: URL) throws {
        let data = try Record.archiveEncoder.encode(records)
        try data.write(to: url, options: .atomic)
    }

    static func load(from url: URL) throws -> [Record] {
        try Record.archiveDecoder.decode([Record].self, from: Data(contentsOf: url))
    }
}
