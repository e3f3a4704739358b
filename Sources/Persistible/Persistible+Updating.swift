import Foundation

// MARK: - Update

extension Persistible where Self: Codable & Hashable {
    /// Changes the single value the file holds, or `defaultValue` when nothing has been saved yet, and saves the
    /// result in place of it; the read-modify-write that settings need.
    ///
    /// Under the file's lock, it reads the stored value (or takes `defaultValue` when there is no file), runs
    /// `body` on it and writes the result as a single value, in one atomic write. Because the lock is held from the
    /// read to the write, updates from other threads and processes are applied one after the other and none is
    /// lost: two processes that each increment a counter 500 times leave it at 1,000.
    ///
    /// A stored value that lacks a key its type requires takes it from the encoding of `defaultValue`, as
    /// ``loadFromFile(default:)`` does, and a write of the changed value stores it; an update that changes nothing
    /// writes nothing.
    ///
    /// Nothing is written if `body` throws, or if it leaves the value equal to the stored one. When there is no
    /// file the result is written even if it equals `defaultValue`, so that a choice the user made stays made
    /// when a later version changes the default.
    ///
    /// ```swift
    /// let settings = try Settings.update(default: Settings()) { settings in
    ///     settings.fontSize += 2
    /// }
    /// ```
    ///
    /// `body` runs while the lock is held: keep it short, and do not save, update or delete this type's file from
    /// it (loading is fine), or it waits for itself.
    ///
    /// The stored value keeps the keys this type does not know, such as fields a newer version of the program
    /// added, at every depth, unless `body` gives an `Identifiable` value another `id`; a value migrated from an
    /// older type is written without its old keys. A stored field this type reads as another value (a theme it
    /// does not know read as a fallback case) keeps its stored bytes unless `body` assigns it another value.
    ///
    /// - Parameters:
    ///   - defaultValue: The value to start from when there is no file, and whose encoding gives the keys a stored
    ///     value lacks; evaluated only when there is no file or the stored value does not decode.
    ///   - body: Changes the value.
    /// - Returns: The value the file holds afterwards.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/holdsArray(count:)`` if the file holds an
    ///   array, ``PersistenceError/Reason/unreadable(codingPath:detail:)`` if it holds neither `Self` nor `[Self]`,
    ///   ``PersistenceError/Reason/invalidFileName(_:)`` for a bad ``fileName``,
    ///   ``PersistenceError/Reason/encodingFailed(detail:)`` if the encoder refuses the result,
    ///   ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` if keys this type does not know have no
    ///   place in the new value (an object that became `nil`, an array or object read as another value that
    ///   `body` changed, a stored key that cannot be read), and
    ///   ``PersistenceError/Reason/readFailed(operation:errno:)``,
    ///   ``PersistenceError/Reason/writeFailed(operation:errno:)`` or
    ///   ``PersistenceError/Reason/lockFailed(operation:errno:)`` if the system refuses; or what `defaultValue` or
    ///   `body` throws. The file is then as it was.
    @discardableResult
    public static func update(
        default defaultValue: @autoclosure () throws -> Self,
        _ body: (inout Self) throws -> Void
    ) throws -> Self {
        try archive().update(default: defaultValue, body)
    }
}

// MARK: - Update a list

extension Persistible where Self: Codable & Hashable {
    /// Changes the values the file holds in one step under the file's lock: the read-modify-write that a list
    /// several processes add to needs.
    ///
    /// Under the lock, it reads the values (none when there is no file, and a single value as an array of one),
    /// runs `body` on them and makes the file hold the result as an array, in one atomic write. A load, a change
    /// and a save made one after the other let another process save in between, and its save is lost: two
    /// processes that each take the largest `id` plus one pick the same one. Here nobody writes between the read
    /// and the write, so fresh `id`s never collide:
    ///
    /// ```swift
    /// let id = try Todo.updateList { todos in
    ///     let id = (todos.map(\.id).max() ?? 0) + 1
    ///     todos.append(Todo(id: id, title: "Buy milk"))
    ///     return id
    /// }
    /// ```
    ///
    /// Of several values with one identity in the result (one `id` for an `Identifiable` type, else equal values)
    /// the last stands where the first stood, as ``Swift/Array/saveToFile()`` keeps them. Nothing is written if
    /// `body` throws or leaves the values as they were. Records it leaves as they were keep their stored bytes, and
    /// changed ones keep the keys this type does not know, as ``update(default:_:)`` keeps them.
    ///
    /// `body` runs while the lock is held: keep it short, and do not save, update or delete this type's file from
    /// it (loading is fine), or it waits for itself.
    ///
    /// - Parameter body: Changes the values; what it returns is returned.
    /// - Returns: What `body` returns.
    /// - Throws: ``PersistenceError`` in the same cases as ``update(default:_:)``, except that an array is what it
    ///   expects; or what `body` throws. The file is then as it was.
    @discardableResult
    public static func updateList<Result>(_ body: (inout [Self]) throws -> Result) throws -> Result {
        try archive().rewrite { contents in
            let stored = contents?.values ?? []
            var values = stored
            let result = try body(&values)
            guard values != stored else { return (nil, result) }
            return (.array(WritePlan.inOrder(values, identity: RecordIdentity<Self>())), result)
        }
    }
}

// MARK: - Overwrite

extension Persistible where Self: Codable & Hashable {
    /// Makes the file hold exactly this value, as a single value, whatever value or array it held.
    ///
    /// It replaces what a readable file holds, under the lock and in one atomic write; it writes nothing when the
    /// file holds exactly this value already. A file that cannot be read is never replaced: move it aside or
    /// delete it with ``deleteFile()`` first.
    ///
    /// ```swift
    /// try Settings(theme: "dark", fontSize: 14).overwriteFile()
    /// ```
    ///
    /// A file that holds a single value holds one record: when this value is that record (any value of a type
    /// that is not `Identifiable`, or one with the stored value's `id`), it keeps the keys this type does not
    /// know, such as fields a newer version added, and the stored bytes of each field it read as another value
    /// and that this value leaves as read; a value with another `id` replaces the record and takes none.
    ///
    /// - Throws: ``PersistenceError`` in the same cases as ``saveToFile()``, including
    ///   ``PersistenceError/Reason/unreadable(codingPath:detail:)`` for a file that does not hold `Self` or
    ///   `[Self]`, which is left as it is, and ``PersistenceError/Reason/unknownKeysWouldBeLost(keyPaths:)`` when
    ///   the stored value's unknown keys have no place in this one; nothing is then written.
    public func overwriteFile() throws {
        _ = try Self.archive().overwrite(with: .single(self))
    }
}

extension Array where Element: Persistible & Codable & Hashable {
    /// Makes the file hold exactly these values, in order and without duplicates, whatever value or array it held.
    ///
    /// Of several values with one identity (one `id` for an `Identifiable` type, else equal values) the last stands
    /// where the first stood, as if they were saved one after the other, as ``Array/saveToFile()`` and
    /// ``Store/replaceAll(with:)-(Sequence<Object>)`` do. An empty array leaves the file holding an empty array, `[]`,
    /// rather than deleting it. Nothing is written when the file holds exactly these values already.
    ///
    /// ```swift
    /// try [maame, sam].overwriteFile() // The file holds [maame, sam], whatever it held.
    /// ```
    ///
    /// The write is atomic and locked, as ``Persistible/saveToFile()`` describes, and a file that cannot be read
    /// is never replaced.
    ///
    /// - Throws: ``PersistenceError``, in the same cases as ``Persistible/overwriteFile()``.
    public func overwriteFile() throws {
        let values = WritePlan.inOrder(self, identity: RecordIdentity<Element>())
        _ = try Element.archive().overwrite(with: .array(values))
    }
}
