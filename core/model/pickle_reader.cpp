// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/pickle_reader.h"

#include "util/pickle_guard.h"

#include <torch/torch.h>

#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace hr::pickle {

ValuePtr Value::get(const std::string& key) const {
    if (kind == Kind::Object)
        return state ? state->get(key) : nullptr;
    for (const auto& [k, v] : entries)
        if (k && k->kind == Kind::String && k->text == key)
            return v;
    return nullptr;
}

std::string Value::str(const std::string& fallback) const {
    return kind == Kind::String ? text : fallback;
}

namespace {

ValuePtr make(Value::Kind kind) {
    auto v = std::make_shared<Value>();
    v->kind = kind;
    return v;
}

ValuePtr makeString(std::string text, Value::Kind kind = Value::Kind::String) {
    auto v = make(kind);
    v->text = std::move(text);
    return v;
}

ValuePtr makeInt(std::int64_t i) {
    auto v = make(Value::Kind::Int);
    v->integer = i;
    return v;
}

std::vector<std::int64_t> intList(const ValuePtr& v, const char* what) {
    if (!v || (v->kind != Value::Kind::Tuple && v->kind != Value::Kind::List))
        throw std::runtime_error(std::string("tensor ") + what + " is not a tuple");
    std::vector<std::int64_t> out;
    for (const auto& item : v->items) {
        if (!item || item->kind != Value::Kind::Int)
            throw std::runtime_error(std::string("tensor ") + what + " holds a non-integer");
        out.push_back(item->integer);
    }
    return out;
}

constexpr std::int64_t kMostTensorElements = std::int64_t(1) << 32;

// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...).
ValuePtr rebuildTensor(const std::vector<ValuePtr>& args) {
    if (args.size() < 4 || !args[0] || args[0]->kind != Value::Kind::Storage)
        throw std::runtime_error("a tensor without its storage");
    const torch::Tensor& storage = args[0]->tensor;
    if (!args[1] || args[1]->kind != Value::Kind::Int)
        throw std::runtime_error("a tensor with a non-integer storage offset");
    const auto sizes = intList(args[2], "size");
    const auto strides = intList(args[3], "stride");
    if (sizes.size() != strides.size())
        throw std::runtime_error("a tensor whose size and stride differ in rank");
    // The storage bounds a loaded tensor below; sizes alone must not ask for more memory
    // than a file can describe.
    std::int64_t elements = 1;
    for (const std::int64_t size : sizes) {
        if (size < 0 || (size > 0 && elements > kMostTensorElements / size))
            throw std::runtime_error("a tensor of impossible size");
        elements *= size;
    }
    auto v = make(Value::Kind::Tensor);
    if (!storage.defined()) { // storages not loaded (architecture-only reads)
        v->tensor = torch::empty(sizes, torch::TensorOptions().dtype(torch::kFloat)).fill_(0);
        return v;
    }
    std::int64_t last = args[1]->integer;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == 0) {
            last = -1;
            break;
        }
        last += (sizes[i] - 1) * strides[i];
    }
    if (last >= storage.numel())
        throw std::runtime_error("a tensor reaches past the end of its storage");
    v->tensor = storage.as_strided(sizes, strides, args[1]->integer);
    return v;
}

class Unpickler {
public:
    Unpickler(const char* data, std::size_t size, const PersistentLoad& persistentLoad)
        : m_data(data), m_size(size), m_persistentLoad(persistentLoad) {}

    ValuePtr run() {
        while (true) {
            m_opcodeAt = m_pos;
            const auto op = static_cast<unsigned char>(readByte());
            if (op == '.')
                break;
            step(op);
            checkGrowth();
        }
        if (m_stack.empty())
            fail("the stream ends with an empty stack");
        return m_stack.back();
    }

private:
    void refuseCode(const std::string& module, const std::string& name) const {
        if (runsCode(module, name))
            throw UnsafePickle("pickle data at byte " + std::to_string(m_opcodeAt) + ": it calls " +
                               module + "." + name +
                               ", which would run code on this machine when Python loads it; "
                               "the file is not loaded (do not open it with torch.load either)");
    }

    // Every item costs the reader far more than the byte that pushed it (a DUP bomb).
    void checkGrowth() const {
        if (m_stack.size() > kMostItems || m_memo.size() > kMostItems)
            fail("its stack or memo grows past " + std::to_string(kMostItems) +
                 " items, more than any checkpoint holds");
    }
    static constexpr std::size_t kMostItems = 4'000'000;

    [[noreturn]] void fail(const std::string& what) const {
        std::ostringstream out;
        out << "pickle data at byte " << m_opcodeAt << ": " << what;
        throw std::runtime_error(out.str());
    }

    char readByte() {
        if (m_pos >= m_size)
            fail("the stream ends early");
        return m_data[m_pos++];
    }

    std::string readBytes(std::uint64_t n) {
        if (n > m_size - m_pos)
            fail("the stream ends early");
        std::string out(m_data + m_pos, static_cast<size_t>(n));
        m_pos += static_cast<size_t>(n);
        return out;
    }

    std::uint64_t readUnsigned(int bytes) {
        const std::string b = readBytes(static_cast<std::uint64_t>(bytes));
        std::uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; --i)
            v = (v << 8) | static_cast<unsigned char>(b[static_cast<size_t>(i)]);
        return v;
    }

    std::string readLine() {
        std::string out;
        while (true) {
            const char c = readByte();
            if (c == '\n')
                return out;
            out += c;
        }
    }

    ValuePtr pop() {
        if (m_stack.empty())
            fail("pop from an empty stack");
        ValuePtr v = m_stack.back();
        m_stack.pop_back();
        return v;
    }

    ValuePtr& top() {
        if (m_stack.empty())
            fail("the stack is empty");
        return m_stack.back();
    }

    // Items pushed since the last MARK, removed from the stack.
    std::vector<ValuePtr> popMark() {
        if (m_marks.empty())
            fail("no MARK to pop to");
        const size_t mark = m_marks.back();
        m_marks.pop_back();
        if (mark > m_stack.size())
            fail("a MARK past the stack");
        std::vector<ValuePtr> items(m_stack.begin() + static_cast<std::ptrdiff_t>(mark),
                                    m_stack.end());
        m_stack.resize(mark);
        return items;
    }

    ValuePtr tuple(std::vector<ValuePtr> items) {
        auto v = make(Value::Kind::Tuple);
        v->items = std::move(items);
        return v;
    }

    void setItems(const ValuePtr& target, const std::vector<ValuePtr>& kv) {
        if (target->kind != Value::Kind::Dict && target->kind != Value::Kind::Object)
            fail("SETITEM on something that is not a mapping");
        for (size_t i = 0; i + 1 < kv.size(); i += 2)
            target->entries.emplace_back(kv[i], kv[i + 1]);
    }

    void appendItems(const ValuePtr& target, const std::vector<ValuePtr>& items) {
        if (target->kind != Value::Kind::List && target->kind != Value::Kind::Object)
            fail("APPEND on something that is not a list");
        target->items.insert(target->items.end(), items.begin(), items.end());
    }

    void memoize(std::uint64_t index) { m_memo[index] = top(); }

    ValuePtr memoGet(std::uint64_t index) {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            fail("memo entry " + std::to_string(index) + " was never stored");
        return it->second;
    }

    // A class or function applied to arguments (REDUCE, NEWOBJ).
    ValuePtr call(const ValuePtr& callable, const ValuePtr& args) {
        const std::vector<ValuePtr> none;
        const std::vector<ValuePtr>& a = args ? args->items : none;
        const std::string name = callable ? callable->text : std::string();
        if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor")
            return rebuildTensor(a);
        if (name == "torch._utils._rebuild_parameter" ||
            name == "torch._utils._rebuild_parameter_with_state") {
            if (a.empty() || !a[0] || a[0]->kind != Value::Kind::Tensor)
                fail("a parameter without its tensor");
            return a[0];
        }
        if (name == "collections.OrderedDict" || name == "builtins.dict") {
            auto d = make(Value::Kind::Dict);
            if (!a.empty() && a[0] && a[0]->kind == Value::Kind::List)
                for (const auto& pair : a[0]->items)
                    if (pair && pair->items.size() == 2)
                        d->entries.emplace_back(pair->items[0], pair->items[1]);
            return d;
        }
        if (name == "builtins.set" || name == "builtins.frozenset") {
            auto s = make(Value::Kind::List);
            if (!a.empty() && a[0])
                s->items = a[0]->items;
            return s;
        }
        if (name == "torch.Size" && !a.empty() && a[0])
            return tuple(a[0]->items);
        if (name == "_codecs.encode" && !a.empty() && a[0] && a[0]->kind == Value::Kind::String) {
            // Protocol 2 writes bytes as encode(text, 'latin1'): map each code point back.
            const std::string& utf8 = a[0]->text;
            std::string bytes;
            for (size_t i = 0; i < utf8.size(); ++i) {
                const auto c = static_cast<unsigned char>(utf8[i]);
                if (c < 0x80) {
                    bytes += static_cast<char>(c);
                } else if (i + 1 < utf8.size()) {
                    bytes += static_cast<char>(((c & 0x1f) << 6) |
                                               (static_cast<unsigned char>(utf8[i + 1]) & 0x3f));
                    ++i;
                }
            }
            return makeString(bytes, Value::Kind::Bytes);
        }
        auto object = make(Value::Kind::Object);
        object->text = name.empty() ? std::string("<callable>") : name;
        object->items = a;
        return object;
    }

    void build(const ValuePtr& target, const ValuePtr& state) {
        if (target->kind != Value::Kind::Object)
            return; // tensors, dicts: state the reader does not need
        // (dict, slots) tuples: the slots part goes into the same state mapping.
        ValuePtr s = state;
        if (s && s->kind == Value::Kind::Tuple && s->items.size() == 2) {
            ValuePtr merged = make(Value::Kind::Dict);
            for (const auto& part : s->items)
                if (part && part->kind == Value::Kind::Dict)
                    merged->entries.insert(merged->entries.end(), part->entries.begin(),
                                           part->entries.end());
            s = merged;
        }
        if (target->state && target->state->kind == Value::Kind::Dict && s &&
            s->kind == Value::Kind::Dict)
            target->state->entries.insert(target->state->entries.end(), s->entries.begin(),
                                          s->entries.end());
        else
            target->state = s;
    }

    void step(unsigned char op) {
        switch (op) {
        case 0x80: // PROTO
            if (static_cast<unsigned char>(readByte()) > 5)
                fail("pickle protocol newer than 5");
            break;
        case 0x95: // FRAME
            readUnsigned(8);
            break;
        case '(': // MARK
            m_marks.push_back(m_stack.size());
            break;
        case '0': // POP
            pop();
            break;
        case '1': // POP_MARK
            popMark();
            break;
        case '2': // DUP
            m_stack.push_back(top());
            break;
        case 'N':
            m_stack.push_back(make(Value::Kind::None));
            break;
        case 0x88:
        case 0x89: {
            auto v = make(Value::Kind::Bool);
            v->boolean = op == 0x88;
            m_stack.push_back(v);
            break;
        }
        case 'J':
            m_stack.push_back(makeInt(static_cast<std::int32_t>(readUnsigned(4))));
            break;
        case 'K':
            m_stack.push_back(makeInt(static_cast<std::int64_t>(readUnsigned(1))));
            break;
        case 'M':
            m_stack.push_back(makeInt(static_cast<std::int64_t>(readUnsigned(2))));
            break;
        case 0x8a:   // LONG1
        case 0x8b: { // LONG4
            const std::uint64_t n = readUnsigned(op == 0x8a ? 1 : 4);
            const std::string b = readBytes(n);
            if (n > 8)
                fail("an integer wider than 64 bits");
            std::uint64_t u = 0;
            for (size_t i = b.size(); i-- > 0;)
                u = (u << 8) | static_cast<unsigned char>(b[i]);
            if (n > 0 && n < 8 && (static_cast<unsigned char>(b.back()) & 0x80))
                u |= ~std::uint64_t{0} << (8 * n); // sign-extend
            m_stack.push_back(makeInt(static_cast<std::int64_t>(u)));
            break;
        }
        case 'I': { // INT (protocol 0): "01"/"00" are True/False
            const std::string line = readLine();
            if (line == "01" || line == "00") {
                auto v = make(Value::Kind::Bool);
                v->boolean = line == "01";
                m_stack.push_back(v);
            } else {
                m_stack.push_back(makeInt(std::stoll(line)));
            }
            break;
        }
        case 'G': { // BINFLOAT, big-endian
            const std::string b = readBytes(8);
            std::uint64_t u = 0;
            for (char c : b)
                u = (u << 8) | static_cast<unsigned char>(c);
            auto v = make(Value::Kind::Float);
            std::memcpy(&v->real, &u, sizeof u);
            m_stack.push_back(v);
            break;
        }
        case 'X':
            m_stack.push_back(makeString(readBytes(readUnsigned(4))));
            break;
        case 0x8c:
            m_stack.push_back(makeString(readBytes(readUnsigned(1))));
            break;
        case 0x8d:
            m_stack.push_back(makeString(readBytes(readUnsigned(8))));
            break;
        case 'T':
            m_stack.push_back(makeString(readBytes(readUnsigned(4))));
            break;
        case 'U':
            m_stack.push_back(makeString(readBytes(readUnsigned(1))));
            break;
        case 'B':
            m_stack.push_back(makeString(readBytes(readUnsigned(4)), Value::Kind::Bytes));
            break;
        case 'C':
            m_stack.push_back(makeString(readBytes(readUnsigned(1)), Value::Kind::Bytes));
            break;
        case 0x8e:
        case 0x96:
            m_stack.push_back(makeString(readBytes(readUnsigned(8)), Value::Kind::Bytes));
            break;
        case ']':
            m_stack.push_back(make(Value::Kind::List));
            break;
        case 'l': {
            auto v = make(Value::Kind::List);
            v->items = popMark();
            m_stack.push_back(v);
            break;
        }
        case 'a': {
            ValuePtr item = pop();
            appendItems(top(), {item});
            break;
        }
        case 'e': {
            auto items = popMark();
            appendItems(top(), items);
            break;
        }
        case ')':
            m_stack.push_back(tuple({}));
            break;
        case 't':
            m_stack.push_back(tuple(popMark()));
            break;
        case 0x85:
        case 0x86:
        case 0x87: {
            const size_t n = static_cast<size_t>(op - 0x84);
            if (m_stack.size() < n)
                fail("TUPLE needs more items than the stack holds");
            std::vector<ValuePtr> items(m_stack.end() - static_cast<std::ptrdiff_t>(n),
                                        m_stack.end());
            m_stack.resize(m_stack.size() - n);
            m_stack.push_back(tuple(std::move(items)));
            break;
        }
        case '}':
            m_stack.push_back(make(Value::Kind::Dict));
            break;
        case 'd': {
            auto v = make(Value::Kind::Dict);
            setItems(v, popMark());
            m_stack.push_back(v);
            break;
        }
        case 's': {
            ValuePtr value = pop();
            ValuePtr key = pop();
            setItems(top(), {key, value});
            break;
        }
        case 'u': {
            auto kv = popMark();
            setItems(top(), kv);
            break;
        }
        case 0x8f: // EMPTY_SET
            m_stack.push_back(make(Value::Kind::List));
            break;
        case 0x90: { // ADDITEMS
            auto items = popMark();
            appendItems(top(), items);
            break;
        }
        case 0x91: { // FROZENSET
            auto v = make(Value::Kind::List);
            v->items = popMark();
            m_stack.push_back(v);
            break;
        }
        case 'c': {
            std::string module = readLine();
            std::string name = readLine();
            refuseCode(module, name);
            m_stack.push_back(makeString(module + "." + name, Value::Kind::Global));
            break;
        }
        case 0x93: { // STACK_GLOBAL
            ValuePtr name = pop();
            ValuePtr module = pop();
            refuseCode(module->text, name->text);
            m_stack.push_back(makeString(module->text + "." + name->text, Value::Kind::Global));
            break;
        }
        case 'R': {
            ValuePtr args = pop();
            ValuePtr callable = pop();
            m_stack.push_back(call(callable, args));
            break;
        }
        case 0x81: { // NEWOBJ
            ValuePtr args = pop();
            ValuePtr cls = pop();
            m_stack.push_back(call(cls, args));
            break;
        }
        case 0x92: { // NEWOBJ_EX
            pop();   // kwargs
            ValuePtr args = pop();
            ValuePtr cls = pop();
            m_stack.push_back(call(cls, args));
            break;
        }
        case 'b': {
            ValuePtr state = pop();
            build(top(), state);
            break;
        }
        case 'q':
            memoize(readUnsigned(1));
            break;
        case 'r':
            memoize(readUnsigned(4));
            break;
        case 0x94: // MEMOIZE
            memoize(m_memo.size());
            break;
        case 'p':
            memoize(std::stoull(readLine()));
            break;
        case 'h':
            m_stack.push_back(memoGet(readUnsigned(1)));
            break;
        case 'j':
            m_stack.push_back(memoGet(readUnsigned(4)));
            break;
        case 'g':
            m_stack.push_back(memoGet(std::stoull(readLine())));
            break;
        case 'Q': { // BINPERSID
            ValuePtr pid = pop();
            if (!m_persistentLoad)
                fail("a persistent id but no way to load it");
            m_stack.push_back(m_persistentLoad(pid));
            break;
        }
        default: {
            std::ostringstream out;
            out << "unsupported opcode 0x" << std::hex << static_cast<int>(op);
            fail(out.str());
        }
        }
    }

    const char* m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
    std::size_t m_opcodeAt = 0;
    const PersistentLoad& m_persistentLoad;
    std::vector<ValuePtr> m_stack;
    std::vector<std::size_t> m_marks;
    std::map<std::uint64_t, ValuePtr> m_memo;
};

void collect(const ValuePtr& module, const std::string& prefix,
             std::vector<std::pair<std::string, torch::Tensor>>& out,
             std::set<const Value*>& seen) {
    if (!module || module->kind != Value::Kind::Object || !seen.insert(module.get()).second)
        return;
    std::set<std::string> nonPersistent;
    if (ValuePtr np = module->get("_non_persistent_buffers_set"))
        for (const auto& item : np->items)
            if (item && item->kind == Value::Kind::String)
                nonPersistent.insert(item->text);
    for (const char* group : {"_parameters", "_buffers"}) {
        ValuePtr dict = module->get(group);
        if (!dict)
            continue;
        for (const auto& [key, value] : dict->entries) {
            if (!key || key->kind != Value::Kind::String || !value ||
                value->kind != Value::Kind::Tensor || nonPersistent.count(key->text))
                continue;
            out.emplace_back(prefix + key->text, value->tensor);
        }
    }
    if (ValuePtr children = module->get("_modules"))
        for (const auto& [key, child] : children->entries)
            if (key && key->kind == Value::Kind::String)
                collect(child, prefix + key->text + ".", out, seen);
}

} // namespace

ValuePtr unpickle(const char* data, std::size_t size, const PersistentLoad& persistentLoad) {
    return Unpickler(data, size, persistentLoad).run();
}

std::vector<std::pair<std::string, torch::Tensor>> moduleTensors(const ValuePtr& module) {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    std::set<const Value*> seen;
    collect(module, "", out, seen);
    return out;
}

} // namespace hr::pickle
