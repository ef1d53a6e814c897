// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hr::pickle {

struct Value;
using ValuePtr = std::shared_ptr<Value>;

/// One node of an unpickled object graph. Python classes the reader does not know become
/// Objects that keep their class name, constructor arguments and state, so any checkpoint
/// can be walked without the code that wrote it.
struct Value {
    enum class Kind {
        None,
        Bool,
        Int,
        Float,
        String,
        Bytes,
        List,
        Tuple,
        Dict,
        Object,
        Global,
        Tensor,
        Storage
    };
    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0.0;
    /// String/Bytes: the text; Global and Object: "module.qualname" of the class.
    std::string text;
    /// List and Tuple items; an Object's constructor arguments.
    std::vector<ValuePtr> items;
    /// Dict entries in insertion order (also items set on dict-like Objects).
    std::vector<std::pair<ValuePtr, ValuePtr>> entries;
    /// An Object's state (what BUILD gave it; usually a Dict of its attributes).
    ValuePtr state;
    /// Tensor: the tensor; Storage: a 1-D tensor over the whole storage.
    torch::Tensor tensor;

    bool isNone() const { return kind == Kind::None; }
    /// Dict entry (or, for an Object, the entry of its state dict) with string key `key`;
    /// null when absent.
    ValuePtr get(const std::string& key) const;
    /// The text when this is a String, else `fallback`.
    std::string str(const std::string& fallback = {}) const;
};

/// Turns a persistent id (BINPERSID) into a value; torch.save uses it for tensor storages.
using PersistentLoad = std::function<ValuePtr(const ValuePtr& pid)>;

/// A pickle that would run code when Python loads it (a GLOBAL of os.system, eval, ...).
struct UnsafePickle : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Reads a pickle stream (protocols 2 to 5, the opcodes torch.save and Python's pickle emit for
/// plain data, classes and tensors). Throws std::runtime_error naming the offset and opcode
/// when the stream is malformed or uses an opcode it does not handle, UnsafePickle when it asks
/// for a callable that runs code. The stack and memo are bounded.
ValuePtr unpickle(const char* data, std::size_t size, const PersistentLoad& persistentLoad);

/// Each module's `_parameters` and `_buffers` under dotted names ("model.0.conv.weight"), in
/// the order Python's state_dict() lists them; non-persistent buffers and None entries are
/// left out. `module` is an Object whose state holds `_parameters`, `_buffers`, `_modules`.
std::vector<std::pair<std::string, torch::Tensor>> moduleTensors(const ValuePtr& module);

} // namespace hr::pickle
