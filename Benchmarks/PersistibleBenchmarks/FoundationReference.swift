import Foundation

/// The reference for bulk saves and loads: what an app would write with Foundation alone, in the package's format.
///
/// `.atomic` gives the same all-or-nothing replacement as the package, without the lock. It flushes the temporary
/// file before renaming it (seen with `strace` on Linux) but not the directory, so a durable save is compared with a
/// little less durability than it gives: the ratio shows what the package's safety and bookkeeping cost on top of
/// encoding and writing.
enum FoundationReference {
    /// Encodes and writes the records; with `flushingDirectory`, then flushes the directory as a durable save
    /// does, so that the rename itself survives a power loss.
    static func save(_ records: [Record], to url: URL, flushingDirectory: Bool = false) throws {
        let data = try Record.archiveEncoder.encode(records)
        try data.write(to: url, options: .atomic)
        if flushingDirectory {
            let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY)
            guard directory >= 0 else { throw CocoaError(.fileWriteUnknown) }
            defer { close(directory) }
            guard fsync(directory) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    static func load(from url: URL) throws -> [Record] {
        try Record.archiveDecoder.decode([Record].self, from: Data(contentsOf: url))
    }
}
