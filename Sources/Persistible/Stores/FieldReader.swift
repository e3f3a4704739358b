/// Reads the value at a key path, directly from memory when the key path names a stored property of a struct.
///
/// Reading through `object[keyPath:]` calls into the runtime each time, several times the cost of the comparison
/// a query then makes. For a stored property, `MemoryLayout.offset(of:)` gives the property's place in the value
/// once, and each read is a load from there. Computed properties, class instances and optional chains have no
/// offset and are read through the key path.
@usableFromInline
struct FieldReader<Object, Value>: Sendable {
    @usableFromInline let keyPath: KeyPath<Object, Value> & Sendable
    @usableFromInline let offset: Int?

    @inlinable
    init(_ keyPath: KeyPath<Object, Value> & Sendable) {
        self.keyPath = keyPath
        offset = MemoryLayout<Object>.offset(of: keyPath)
    }

    /// The value in the record at `record`, read in place: the record itself is not copied, so its other
    /// references are not retained and released for each read.
    @inlinable
    func read(at record: UnsafePointer<Object>) -> Value {
        guard let offset else { return record.pointee[keyPath: keyPath] }
        // The offset is that of a stored property of `Object`, so the memory there is bound to `Value`.
        return (UnsafeRawPointer(record) + offset).assumingMemoryBound(to: Value.self).pointee
    }
}
