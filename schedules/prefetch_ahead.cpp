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
        if (op->name == buffer_ && ramp && ramp->base.type().is_scalar() && is_const_one(ramp->stride) &&
            op->type.bytes() * ramp->lanes >= 16) {
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
    // Each branch starts from what was prefetched before the `if` (only one of them runs).
    Stmt visit(const IfThenElse *op) override {
        const auto before = prefetched_;
        Stmt then_case = mutate(op->then_case);
        prefetched_ = before;
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        prefetched_ = before;
        if (then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return op;
        return IfThenElse::make(op->condition, then_case, else_case);
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

    // A prefetch for each line a load spans (from its start, a line apart), but for those within
    // a line of one already prefetched in this loop body.
    std::vector<Stmt> prefetches(const Expr &e) {
        std::vector<const Load *> loads;
        DenseLoads finder(buffer_, loads);
        e.accept(&finder);
        std::vector<Stmt> out;
        for (const Load *load : loads) {
            const Ramp *ramp = load->index.as<Ramp>();
            const int bytes = load->type.bytes(), line = kLineBytes / bytes;
            auto [varying, offset] = split_constant(ramp->base);
            std::vector<int64_t> &offsets = prefetched_[varying];
            for (int64_t at = offset; at < offset + ramp->lanes; at += line) {
                bool covered = false;
                for (int64_t o : offsets) covered = covered || std::abs(o - at) < line;
                if (covered) continue;
                offsets.push_back(at);
                const Expr address = Variable::make(Handle(), buffer_);
                // One constant added to the base: the line's offset within the load, and the distance.
                const Expr ahead = ramp->base + static_cast<int>(at - offset + ahead_bytes_ / bytes);
                const Expr call = Call::make(load->type.element_of(), Call::prefetch, {address, ahead, 1, 1}, Call::Intrinsic);
                out.push_back(Evaluate::make(call));
            }
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
