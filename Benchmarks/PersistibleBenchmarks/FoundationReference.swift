import Foundation

/// The reference for bulk saves and loads: what an app would write with Foundation alone, in the package's format.
///
/// `.atomic` gives the same all-or-nothing replacement as the package, without the lock. It flushes the temporary
/// file before renaming it (seen with `strace` on Linux) but not the directory, so a durable save is compared with a
/// little less durability than it gives: the ratio shows what the package's safety and bookkeeping cost on top of
/// encoding and writing.
enum FoundationReference {
    static func save(_ records: [Record], to url: URL) throws {
        let data = try Record.archiveEncoder.encode(records)
        try data.write(to: url, options: .atomic)
    }

    static func load(from url: URL) throws -> [Record] {
        try Record.archiveDecoder.decode([Record].self, from: Data(contentsOf: url))
    }
}
