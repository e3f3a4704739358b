// MARK: - Load

extension Persistible where Self: Codable & Hashable {
    /// Loads the single value the file holds.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/fileNotFound`` if nothing has been saved,
    ///   ``PersistenceError/Reason/holdsArray(count:)`` if the file holds an array (use ``loadListFromFile()``), or a
    ///   reason it lists for any operation.
    public static func loadFromFile() throws -> Self {
        try single(in: load())
    }

    /// Loads the single value the file holds, or `defaultValue` when nothing has been saved yet; it never writes.
    ///
    /// - Parameter defaultValue: The value to return when there is no file, and whose encoding gives the keys a
    ///   stored value lacks (see <doc:SettingsAndEditing#A-setting-missing-from-the-file>).
    /// - Returns: The stored value, or `defaultValue`.
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does except for a missing file; or what `defaultValue`
    ///   throws.
    public static func loadFromFile(default defaultValue: @autoclosure () throws -> Self) throws -> Self {
        let archive = try archive()
        let state: Snapshot<Self>?
        do {
            state = try archive.read()
        } catch let error where error.versionMismatch != nil {
            state = try archive.filling(from: defaultValue()).read()
        }
        guard let state else { return try defaultValue() }
        return try single(in: state.contents)
    }

    /// Loads every value the file holds, in order: the array, or the single value as an array of one.
    ///
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does, except that an array is what it expects.
    public static func loadListFromFile() throws -> [Self] {
        try load().values
    }

    /// Loads what the file holds, a single value or an array, as ``PersistenceData`` shows.
    ///
    /// - Throws: ``PersistenceError``, as ``loadListFromFile()`` does.
    public static func load() throws -> PersistenceData<Self> {
        let archive = try archive()
        guard let state = try archive.read() else { throw archive.failure(.fileNotFound) }
        return state.contents
    }

    /// Passes what ``load()`` returns to `completion` on the calling thread: the form earlier versions offered.
    ///
    /// - Throws: ``PersistenceError``, as ``load()`` does, or what `completion` throws.
    public static func load(completion: (PersistenceData<Self>) throws -> Void) throws {
        try completion(load())
    }

    private static func single(in contents: PersistenceData<Self>) throws -> Self {
        guard case .single(let value) = contents else {
            throw try archive().failure(.holdsArray(count: contents.values.count))
        }
        return value
    }
}

// MARK: - Look up

extension Persistible where Self: Codable & Hashable & Identifiable {
    /// The stored value with this `id`, or `nil` when the file holds none, or there is no file; of several values
    /// with this `id` (written by other means), the last, which a write of them all keeps.
    ///
    /// Where the file is not cached, the lookup reads the other records' `id`s from their bytes and decodes only the
    /// record it returns and the last one, so that it costs a command-line call the file's scan, not its decode;
    /// a record it does not decode is not checked, so another version's record elsewhere in the file is no error.
    ///
    /// - Parameter id: The identity to look for.
    /// - Returns: The value, or `nil`.
    /// - Throws: ``PersistenceError``, as ``loadListFromFile()`` does for the file and the records it decodes,
    ///   except that no file is no error.
    public static func loadFromFile(id: ID) throws -> Self? {
        try archive().record(withID: id)
    }
}
