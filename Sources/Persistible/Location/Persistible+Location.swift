import Foundation

// MARK: - Location

extension Persistible {
    /// The file that holds the type's values: ``fileName`` with a `.json` extension, in ``archiveDirectory``.
    /// Reading it touches nothing on disk.
    public static var archiveUrl: URL {
        ArchiveAddress.url(for: self, in: archiveDirectory, named: fileName)
    }

    /// The longest ``fileName`` in bytes of UTF-8, so that the name with `.json` fits every file written beside it.
    static var fileNameLimit: Int { AtomicFile.nameLimit - ".json".utf8.count }

    /// ``archiveUrl``, after checking that ``fileName`` names a file in ``archiveDirectory``.
    static func validatedArchiveUrl() throws(PersistenceError) -> URL {
        let name = fileName
        let reason: PersistenceError.Reason
        if ["", ".", ".."].contains(name) || name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 }) {
            reason = .invalidFileName(name)
        } else if name.utf8.count > fileNameLimit {
            reason = .fileNameTooLong(name: name, limit: fileNameLimit)
        } else {
            return archiveUrl
        }
        throw PersistenceError(reason, url: archiveUrl, typeName: String(describing: self))
    }
}

/// Runs `operation` with `directory` as the ``Persistible/archiveDirectory`` of every type that does not declare
/// its own.
///
/// The choice is scoped to the current task, its child tasks and the `Task { }`s it starts, so that tests running in
/// parallel can each use their own temporary directory without changing global state. `Task.detached`, and threads
/// started by other means (a `Thread`, a Dispatch queue), do not see it: call this function again inside them.
///
/// ```swift
/// try withArchiveDirectory(temporaryDirectory) {
///     try sam.saveToFile()
/// }
/// ```
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

/// Each type's archive URL and its path, kept for the directory and file name they were made from: making them costs
/// a save more than the rest of its work in memory, and they seldom change.
enum ArchiveAddress {
    private static let made = Locked<[ObjectIdentifier: (directory: URL, name: String, url: URL, path: String)]>([:])

    /// The file named `name` with a `.json` extension in `directory`, for `type`'s archive.
    static func url(for type: Any.Type, in directory: URL, named name: String) -> URL {
        let key = ObjectIdentifier(type)
        if let address = made.withLock({ $0[key] }), address.name == name, address.directory == directory {
            return address.url
        }
        let url = directory.appendingPathComponent(name, isDirectory: false).appendingPathExtension("json")
        made.withLock { $0[key] = (directory, name, url, url.path) }
        return url
    }

    /// `url.path`, for `type`'s archive at `url`.
    static func path(of url: URL, for type: Any.Type) -> String {
        guard let address = made.withLock({ $0[ObjectIdentifier(type)] }), address.url == url else { return url.path }
        return address.path
    }
}
