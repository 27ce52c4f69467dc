/* SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md) */
#include "cmrsSolver.H"
#include "cmrsFoamEntries.H"
#include "addToRunTimeSelectionTable.H"
#include "objectRegistry.H"
#include "Time.H"

#include <algorithm>
#include <cmath>
#include <vector>

namespace Foam
{
    defineTypeNameAndDebug(cmrsSolver, 0);
    lduMatrix::solver::addsymMatrixConstructorToTable<cmrsSolver>
        addcmrsSolverSymMatrixConstructorToTable_;
    lduMatrix::solver::addasymMatrixConstructorToTable<cmrsSolver>
        addcmrsSolverAsymMatrixConstructorToTable_;
}


Foam::cmrsSolver::cmrsSolver
(
    const word& fieldName,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const dictionary& solverControls
)
:
    // checkedControls first: a bad tolerance is reported by its name
    // before the base class reads it.
    lduMatrix::solver
    (
        fieldName,
        matrix,
        interfaceBouCoeffs,
        interfaceIntCoeffs,
        interfaces,
        cmrsFoam::checkedControls(solverControls)
    )
{
    if (Pstream::parRun())
    {
        FatalErrorInFunction
            << "cmrs: parallel runs are not supported (serial only: "
            << "processor interfaces are not folded)" << exit(FatalError);
    }
    readEntries();
}


void Foam::cmrsSolver::readEntries()
{
    settings_.method = matrix_.symmetric() ? "cg" : "bicgstab";
    settings_.precond = cmrsFoam::readChoice(controlDict_, "preconditioner",
        {"amg", "jacobi", "chebyshev", "none"}, "amg");
    settings_.amgUpdate = cmrsFoam::readChoice(controlDict_, "amgUpdate",
        {"full", "frozen", "auto"}, "auto");
    settings_.maxIter = maxIter_;
    export_.read(controlDict_);
}


namespace
{

// sum|r| and ||r||2 of r = source - A psi (OpenFOAM's A: interfaces too).
void residual
(
    const Foam::lduMatrix::solver& s, const Foam::scalarField& psi,
    const Foam::scalarField& source, Foam::direction cmpt,
    Foam::solveScalarField& r, double& l1, double& l2
)
{
    s.matrix().Amul(r, Foam::tmp<Foam::solveScalarField>(psi),
        s.interfaceBouCoeffs(), s.interfaces(), cmpt);
    l1 = 0;
    l2 = 0;
    for (Foam::label i = 0; i < r.size(); ++i)
    {
        r[i] = source[i] - r[i];
        l1 += std::fabs(r[i]);
        l2 += r[i]*r[i];
    }
    l2 = std::sqrt(l2);
}

} // namespace


// libcmrs stops on the 2-norm, OpenFOAM on sum|r|/normFactor. Each round
// asks cmrs for the 2-norm that the current residual's ratio of the two
// norms says is enough (less 20%), by scaling b and x0 so that the
// solver's fixed atol of 1 is that 2-norm (CG and BiCGStab are invariant
// under that scaling); then OpenFOAM's residual is computed and another
// round runs only when it is still above the target.
Foam::label Foam::cmrsSolver::iterate
(
    cmrsFoam::State& st,
    scalarField& psi,
    const scalarField& source,
    direction cmpt,
    scalar normFactor,
    solverPerformance& perf
) const
{
    const label n = psi.size();
    const double target =
        max(tolerance_, relTol_*perf.initialResidual())*normFactor;
    solveScalarField r(n);
    std::vector<double> b(n), y(n);
    double l1, l2, bnorm = 0;
    for (label i = 0; i < n; ++i) bnorm += source[i]*source[i];
    bnorm = std::sqrt(bnorm);
    residual(*this, psi, source, cmpt, r, l1, l2);
    label its = 0;
    for (int round = 0; round < 4 && its < maxIter_; ++round)
    {
        // (A goal below the round-off of the scaled system -- tolerance
        // 0 included -- is unreachable: the solve runs to maxIter, as
        // OpenFOAM's own solvers do then.)
        const double goal = std::max(0.8*target*(l1 > 0 ? l2/l1 : 1.0),
                                     1e-17*std::max(bnorm, l2) + 1e-300);
        const double scale = 1/goal;
        for (label i = 0; i < n; ++i)
        {
            b[i] = scale*st.csr.sign*source[i];
            y[i] = scale*psi[i];
        }
        cmrsFoam::check(cmrs_solver_solve(st.solver, b.data(), y.data()),
                        "solve");
        cmrs_solve_info info;
        cmrsFoam::check(cmrs_solver_get_info(st.solver, &info), "info");
        for (label i = 0; i < n; ++i) psi[i] = y[i]/scale;
        its += label(info.iterations);
        residual(*this, psi, source, cmpt, r, l1, l2);
        perf.finalResidual() = l1/normFactor;
        if (debug)
            Info<< "cmrs: " << fieldName_ << ": round " << round + 1
                << ": " << info.iterations << " iterations, ||r||2 goal "
                << goal << ", residual " << perf.finalResidual()
                << ", update " << info.t_update << " s, solve "
                << info.t_solve << " s" << endl;
        if (perf.checkConvergence(tolerance_, relTol_)) break;
        if (info.reason == CMRS_REASON_DIVERGED_MAXITS) break;
        if (!info.converged)   // breakdown, NaN/Inf: say why
        {
            WarningInFunction
                << "cmrs: " << fieldName_ << ": " << info.method
                << " stopped: " << cmrs_reason_name(info.reason) << endl;
            break;
        }
    }
    return its;
}


Foam::solverPerformance Foam::cmrsSolver::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    solverPerformance perf
    (
        word(matrix_.symmetric() ? "cmrsCG" : "cmrsBiCGStab"),
        fieldName_
    );
    const label n = psi.size();
    const scalarField x0(export_.due(matrix_.mesh().thisDb().time())
                         ? psi : scalarField());
    solveScalarField wA(n), tmpField(n);
    matrix_.Amul(wA, tmp<solveScalarField>(psi), interfaceBouCoeffs_,
                 interfaces_, cmpt);
    const scalar normFactor = this->normFactor(psi, source, wA, tmpField);
    perf.initialResidual() = gSumMag(solveScalarField(source - wA),
                                     matrix_.mesh().comm())/normFactor;
    perf.finalResidual() = perf.initialResidual();

    cmrsFoam::State& st = cmrsFoam::prepare(fieldName_, matrix_,
        interfaceBouCoeffs_, interfaces_, cmpt, settings_);
    if (minIter_ > 0 || !perf.checkConvergence(tolerance_, relTol_))
    {
        perf.nIterations() = iterate(st, psi, source, cmpt, normFactor, perf);
        st.noteConvergence(perf.nIterations(), perf.initialResidual(),
                           perf.finalResidual());
    }

    if (x0.size())
    {
        const Time& t = matrix_.mesh().thisDb().time();
        const cmrsFoam::ExportInfo info =
            cmrsFoam::exportInfo(t, fieldName_, perf);
        cmrsFoam::writeSystem(export_.path(t, fieldName_), st.csr, source,
                              x0, psi, info);
    }
    return perf;
}
