#include "schedules/prefetch_ahead.h"

#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

namespace poolconv::schedules {

using namespace Halide;
using namespace Halide::Internal;

namespace {

constexpr int kLineBytes = 64;

// A load's start address as (the part that varies, a constant offset in elements).
std::pair<Expr, int64_t> split_constant(const Expr &index) {
    if (const Add *add = index.as<Add>()) {
        if (auto c = as_const_int(add->b)) return {add->a, *c};
    }
    if (const Sub *sub = index.as<Sub>()) {
        if (auto c = as_const_int(sub->b)) return {sub->a, -*c};
    }
    return {index, 0};
}

// The dense vector loads of one buffer in an expression, outside Let expressions (whose
// variables a prefetch placed before the statement could not see).
class DenseLoads : public IRVisitor {
public:
    DenseLoads(const std::string &buffer, std::vector<const Load *> &found) : buffer_(buffer), found_(found) {}

private:
    using IRVisitor::visit;
    void visit(const Let *) override {}
    void visit(const Load *op) override {
        IRVisitor::visit(op);
        const Ramp *ramp = op->index.as<Ramp>();
        if (op->name == buffer_ && ramp && is_const_one(ramp->stride) && op->type.bytes() * ramp->lanes >= 16) {
            found_.push_back(op);
        }
    }
    const std::string &buffer_;
    std::vector<const Load *> &found_;
};

class PrefetchAhead : public IRMutator {
public:
    PrefetchAhead(std::string buffer, int ahead_bytes) : buffer_(std::move(buffer)), ahead_bytes_(ahead_bytes) {}

private:
    using IRMutator::visit;

    // Each loop body starts with nothing prefetched (per iteration, loads a line apart are new).
    Stmt visit(const For *op) override {
        auto outer = std::move(prefetched_);
        prefetched_.clear();
        Stmt s = IRMutator::visit(op);
        prefetched_ = std::move(outer);
        return s;
    }
    Stmt visit(const LetStmt *op) override {
        std::vector<Stmt> before = prefetches(op->value);  // in program order: before the body
        Stmt s = IRMutator::visit(op);
        return with(before, s);
    }
    Stmt visit(const Store *op) override {
        std::vector<Stmt> before = prefetches(op->value);
        for (Stmt &p : prefetches(op->index)) before.push_back(p);
        return with(before, IRMutator::visit(op));
    }

    // One prefetch for each load not within a line of one already prefetched in this loop body.
    std::vector<Stmt> prefetches(const Expr &e) {
        std::vector<const Load *> loads;
        DenseLoads finder(buffer_, loads);
        e.accept(&finder);
        std::vector<Stmt> out;
        for (const Load *load : loads) {
            const Expr base = load->index.as<Ramp>()->base;
            const int bytes = load->type.bytes();
            auto [varying, offset] = split_constant(base);
            std::vector<int64_t> &offsets = prefetched_[varying];
            bool covered = false;
            for (int64_t o : offsets) covered = covered || std::abs(o - offset) * bytes < kLineBytes;
            if (covered) continue;
            offsets.push_back(offset);
            const Expr address = Variable::make(Handle(), buffer_);
            const Expr ahead = base + ahead_bytes_ / bytes;
            const Expr call = Call::make(load->type.element_of(), Call::prefetch, {address, ahead, 1, 1}, Call::Intrinsic);
            out.push_back(Evaluate::make(call));
        }
        return out;
    }
    static Stmt with(std::vector<Stmt> before, const Stmt &s) {
        if (before.empty()) return s;
        before.push_back(s);
        return Block::make(before);
    }

    // Per loop body: the loads' varying parts (by structure) and the constant offsets prefetched.
    std::map<Expr, std::vector<int64_t>, IRGraphDeepCompare> prefetched_;
    std::string buffer_;
    int ahead_bytes_;
};

}  // namespace

void prefetch_ahead(Pipeline pipeline, const std::string &buffer, int ahead_bytes) {
    pipeline.add_custom_lowering_pass(new PrefetchAhead(buffer, ahead_bytes));
}

}  // namespace poolconv::schedules
