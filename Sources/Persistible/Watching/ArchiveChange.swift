import Foundation

/// What a type's file holds after a change: its contents, no file, or the error a load would throw.
///
/// The elements of ``ArchiveChanges``; see <doc:Watching>.
public enum ArchiveChange<Value> {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    /// The file holds these contents: what ``Persistible/load()`` returns now.
    case contents(PersistenceData<Value>)

    /// There is no file: nothing was saved yet, or it was deleted or moved away.
    case noFile

    /// The file cannot be read: `error` is what ``Persistible/load()`` throws now. The sequence goes on, and yields
    /// the contents again once the file is repaired.
    case failure(PersistenceError)

    /// The values the file holds: none when there is no file.
    ///
    /// - Returns: The values in order, one for a single value, or none for ``noFile``.
    /// - Throws: The ``PersistenceError`` of a ``failure(_:)``.
    public func values() throws(PersistenceError) -> [Value] {
        switch self {
        case .contents(let data): return data.values
        case .noFile: return []
        case .failure(let error): throw error
        }
    }
}

extension ArchiveChange: Equatable where Value: Equatable {}

extension ArchiveChange: Sendable where Value: Sendable {}

/// Which version of a file an element was read from, so that an event that changed nothing yields nothing.
enum WatchedVersion: Equatable, Sendable {
    case missing
    case file(FileIdentity)
    case failed(PersistenceError, FileIdentity?)
    /// A memory store after this many writes that changed it.
    case written(UInt64)
}

extension Archive {
    /// What the file holds now, and the version it was read from; `archive` holds the error of an invalid file name.
    static func change(of archive: Result<Archive, PersistenceError>) -> (ArchiveChange<Value>, WatchedVersion) {
        // Taken before reading: if the file changes in between, the version is the older one, and the next read,
        // which the change wakes, yields the newer contents rather than taking them for the same.
        let before = (try? archive.get()).flatMap { FileSystem.status($0.url.path).map(FileIdentity.init) }
        do {
            guard let state = try archive.get().read() else { return (.noFile, .missing) }
            return (.contents(state.contents), .file(state.identity))
        } catch {
            return (.failure(error), .failed(error, before))
        }
    }
}
