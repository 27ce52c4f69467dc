/* SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md) */
/* solver cmrsExport: the exporter for cases solved by OpenFOAM's own
 * solvers. It runs the solver named by exportSolver with the rest of the
 * dictionary, and at the chosen time steps writes the system with the
 * solution that solver returned (x_foam), for `cmrs solve`/`cmrs compare`:
 *
 *     p { solver cmrsExport; exportSolver PCG; preconditioner DIC;
 *         tolerance 1e-6; relTol 0; exportTimes (0.5); }
 */
#include "cmrsFoamExport.H"
#include "cmrsFoamEntries.H"
#include "addToRunTimeSelectionTable.H"
#include "objectRegistry.H"

namespace Foam
{

class cmrsExportSolver
:
    public lduMatrix::solver
{
    cmrsFoam::ExportControl export_;
    dictionary inner_;   // the dictionary with solver = exportSolver

public:
    TypeName("cmrsExport");

    cmrsExportSolver
    (
        const word& fieldName,
        const lduMatrix& matrix,
        const FieldField<Field, scalar>& interfaceBouCoeffs,
        const FieldField<Field, scalar>& interfaceIntCoeffs,
        const lduInterfaceFieldPtrsList& interfaces,
        const dictionary& solverControls
    )
    :
        lduMatrix::solver(fieldName, matrix, interfaceBouCoeffs,
            interfaceIntCoeffs, interfaces, solverControls),
        inner_(solverControls)
    {
        export_.read(controlDict_);
        const word inner = controlDict_.get<word>("exportSolver");
        if (inner == typeName)
        {
            FatalIOErrorInFunction(controlDict_)
                << "cmrs: entry 'exportSolver' cannot be " << inner
                << exit(FatalIOError);
        }
        inner_.set("solver", inner);
    }

    virtual solverPerformance solve
    (
        scalarField& psi,
        const scalarField& source,
        const direction cmpt = 0
    ) const
    {
        const Time& t = matrix_.mesh().thisDb().time();
        const bool due = export_.due(t);
        const scalarField x0(due ? psi : scalarField());
        solverPerformance perf = lduMatrix::solver::New(fieldName_, matrix_,
            interfaceBouCoeffs_, interfaceIntCoeffs_, interfaces_,
            inner_)->solve(psi, source, cmpt);
        if (due)
        {
            cmrsFoam::LduCsr csr;
            csr.build(matrix_, interfaceBouCoeffs_, interfaces_);
            csr.verify(matrix_, interfaceBouCoeffs_, interfaces_, cmpt);
            const cmrsFoam::ExportInfo info =
            cmrsFoam::exportInfo(t, fieldName_, perf);
            cmrsFoam::writeSystem(export_.path(t, fieldName_), csr, source,
                                  x0, psi, info);
        }
        return perf;
    }
};

defineTypeNameAndDebug(cmrsExportSolver, 0);
lduMatrix::solver::addsymMatrixConstructorToTable<cmrsExportSolver>
    addcmrsExportSolverSymMatrixConstructorToTable_;
lduMatrix::solver::addasymMatrixConstructorToTable<cmrsExportSolver>
    addcmrsExportSolverAsymMatrixConstructorToTable_;

} // namespace Foam
