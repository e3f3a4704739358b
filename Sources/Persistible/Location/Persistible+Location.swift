import Foundation

// MARK: - Location

extension Persistible {
    /// The file that holds the type's values: ``fileName`` with a `.json` extension, in ``archiveDirectory``.
    ///
    /// Reading it touches nothing on disk; the directory is created by the first save.
    public static var archiveUrl: URL {
        ArchiveAddress.url(for: self, in: archiveDirectory, named: fileName)
    }

    /// The longest ``fileName``, in bytes of UTF-8: the file's name with `.json` must fit the limit of every file
    /// written.
    static var fileNameLimit: Int { AtomicFile.nameLimit - ".json".utf8.count }

    /// ``archiveUrl``, after checking that ``fileName`` names a file in ``archiveDirectory``.
    static func validatedArchiveUrl() throws(PersistenceError) -> URL {
        let name = fileName
        let valid = !name.isEmpty && name != "." && name != ".."
            && !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
        guard valid else {
            throw PersistenceError(.invalidFileName(name), url: archiveUrl, typeName: String(describing: self))
        }
        guard name.utf8.count <= fileNameLimit else {
            throw PersistenceError(
                .fileNameTooLong(name: name, limit: fileNameLimit), url: archiveUrl, typeName: String(describing: self)
            )
        }
        return archiveUrl
    }
}

/// Runs `operation` with `directory` as the ``Persistible/archiveDirectory`` of every type that does not declare
/// its own.
///
/// The choice is scoped to the current task, its child tasks and the `Task { }`s it starts, so tests running in
/// parallel can each use their own temporary directory, and an app can point a subsystem elsewhere, without
/// changing global state:
///
/// ```swift
/// try withArchiveDirectory(temporaryDirectory) {
///     try sam.saveToFile()
/// }
/// ```
///
/// `Task.detached`, and threads started by other means (a `Thread`, a Dispatch queue), do not see it: call this
/// function again inside them.
@discardableResult
public func withArchiveDirectory<Result>(_ directory: URL, operation: () throws -> Result) rethrows -> Result {
    try ArchiveLocation.$scopedDirectory.withValue(directory, operation: operation)
}

/// Runs `operation` with `directory` as the ``Persistible/archiveDirectory`` of every type that does not declare
/// its own; the asynchronous form of ``withArchiveDirectory(_:operation:)``.
@discardableResult
public func withArchiveDirectory<Result>(
    _ directory: URL,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
) async rethrows -> Result {
    try await ArchiveLocation.$scopedDirectory.withValue(directory, operation: operation)
}

/// Where files go when their type does not say.
enum ArchiveLocation {
    @TaskLocal static var scopedDirectory: URL?

    static var defaultDirectory: URL {
        scopedDirectory ?? environmentDirectory ?? platformDirectory
    }

    /// `PERSISTIBLE_DIRECTORY`, read on each use so that a change made by the process is seen.
    private static var environmentDirectory: URL? {
        PlatformDirectory.absolutePath(inEnvironment: "PERSISTIBLE_DIRECTORY").map {
            URL(fileURLWithPath: $0, isDirectory: true)
        }
    }

    /// Worked out once per process, since every operation of a type with the default directory asks for it.
    private static let platformDirectory = ArchiveDirectory.data()
}
