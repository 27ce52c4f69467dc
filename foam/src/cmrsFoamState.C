/* SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md) */
#include "cmrsFoamState.H"
#include "cmrsSolver.H"

#include <cmath>
#include <map>
#include <memory>
#include <sstream>

namespace Foam
{
namespace cmrsFoam
{

namespace
{

// The context is destroyed after every state (the table is declared
// after it, hence destroyed first at exit).
struct ContextHolder
{
    cmrs_context* ctx = nullptr;
    ~ContextHolder() { cmrs_context_destroy(ctx); }
};
ContextHolder holder;
std::map<std::string, std::unique_ptr<State>> table;

// One state per field, mesh and settings: PISO's p and pFinal may name
// different preconditioners, and each keeps its own set-up solver rather
// than setting up again at every switch.
std::string key(const word& field, const lduMatrix& m, const Settings& set)
{
    std::ostringstream os;
    os << field << '@' << static_cast<const void*>(&m.mesh()) << '/'
       << set.method << '/' << set.precond << '/' << set.amgUpdate << '/'
       << set.maxIter;
    return os.str();
}

// Drops the cmrs objects of st (a new pattern or new settings).
void release(State& st)
{
    cmrs_solver_destroy(st.solver);
    cmrs_matrix_destroy(st.A);
    st.solver = nullptr;
    st.A = nullptr;
}

void setOption(cmrs_solver* s, const char* name, const std::string& value)
{
    check(cmrs_solver_set_option(s, name, value.c_str()),
          ("option " + std::string(name) + " = " + value).c_str());
}

// A new cmrs matrix and solver for st's CSR arrays. The tolerance is an
// absolute 1 on ||r||2: each solve scales b and x0 so that 1 is the
// residual it needs (see cmrsSolver.C).
void setup(State& st, const Settings& set)
{
    release(st);
    const LduCsr& c = st.csr;
    check(cmrs_matrix_create_csr(context(), c.n, c.n,
        int64_t(c.indices.size()), c.indptr.data(), c.indices.data(),
        CMRS_INDEX_INT32, c.values.data(), CMRS_VALUE_FLOAT64, &st.A),
        "matrix");
    check(cmrs_solver_create(context(), &st.solver), "solver");
    setOption(st.solver, "solver", set.method);
    setOption(st.solver, "precond", set.precond);
    setOption(st.solver, "rtol", "0");
    setOption(st.solver, "atol", "1");
    setOption(st.solver, "maxiter", std::to_string(set.maxIter));
    if (set.precond == "amg")
        setOption(st.solver, "amg-update",
                  set.amgUpdate == "full" ? "full" : "frozen");
    check(cmrs_solver_setup(st.solver, st.A), "setup");
    st.settings = set;
}

} // namespace


State::~State()
{
    release(*this);
}


void State::noteConvergence(label its, double initial, double final)
{
    if (settings.amgUpdate != "auto" || settings.precond != "amg"
     || its <= 0 || !(initial > 0) || !(final > 0) || final >= initial)
        return;
    const double rate = std::log(final/initial)/its;   // < 0
    if (baseRate == 0)
        baseRate = rate;
    else if (rate > 2*baseRate/3)
        resetup = true;
}


void check(cmrs_status st, const char* what)
{
    if (st == CMRS_SUCCESS) return;
    FatalErrorInFunction
        << "cmrs: " << what << ": " << cmrs_last_error(holder.ctx)
        << " (" << cmrs_status_name(st) << ")" << exit(FatalError);
}


cmrs_context* context()
{
    if (holder.ctx) return holder.ctx;
    const cmrs_status st = cmrs_context_create(CMRS_DEVICE_AUTO, &holder.ctx);
    if (st != CMRS_SUCCESS)
    {
        FatalErrorInFunction
            << "cmrs: cannot create a context: " << cmrs_last_error(nullptr)
            << exit(FatalError);
    }
    const bool gpu = cmrs_context_device(holder.ctx) != CMRS_DEVICE_CPU;
    Info<< "cmrs: libcmrs " << cmrs_version() << " solving on "
        << (gpu ? "the GPU " : "the CPU back end (no GPU found): ")
        << cmrs_context_device_name(holder.ctx) << endl;
    return holder.ctx;
}


State& prepare
(
    const word& field,
    const lduMatrix& m,
    const FieldField<Field, scalar>& bc,
    const lduInterfaceFieldPtrsList& interfaces,
    direction cmpt,
    const Settings& set
)
{
    std::unique_ptr<State>& slot = table[key(field, m, set)];
    if (!slot || !slot->csr.samePattern(m, interfaces))
    {
        slot.reset(new State);
        slot->csr.build(m, bc, interfaces);
        slot->csr.verify(m, bc, interfaces, cmpt);
        setup(*slot, set);
        const LduCsr& c = slot->csr;
        Info<< "cmrs: " << field << ": CSR pattern built, " << c.n
            << " rows, " << c.indices.size() << " nonzeros ("
            << set.method.c_str() << " + " << set.precond.c_str() << "; later solves "
            << "update values only)"
            << (c.sign < 0 ? "; A and b negated: negative diagonal" : "")
            << endl;
        return *slot;
    }
    State& st = *slot;
    const bool changed = st.csr.fill(m, bc);
    if (!(st.settings == set))
        setup(st, set);
    else if (changed)
    {
        check(cmrs_solver_update_values(st.solver, st.csr.values.data(),
              CMRS_VALUE_FLOAT64, CMRS_MEMORY_HOST), "update values");
        if (st.resetup)   // the matrix has the new values: a fresh hierarchy
        {
            check(cmrs_solver_setup(st.solver, st.A), "setup");
            st.resetup = false;
            st.baseRate = 0;
            if (cmrsSolver::debug)
                Info<< "cmrs: " << field << ": AMG set up again" << endl;
        }
    }
    if (cmrsSolver::debug)   // DebugSwitches { cmrs 1; }
        Info<< "cmrs: " << field << ": values "
            << (changed ? "updated" : "unchanged") << endl;
    return st;
}

} // namespace cmrsFoam
} // namespace Foam
