/* SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md) */
#include "lduCsr.H"

#include "cyclicLduInterface.H"
#include "cyclicLduInterfaceField.H"

#include <algorithm>
#include <cmath>
#include <limits>

namespace Foam
{
namespace cmrsFoam
{

namespace
{

// One coefficient of the LDU matrix and the CSR position it lands on.
struct Entry
{
    int32_t row, col;
    int64_t src;   // index into the list of LDU coefficients
};

// The neighbour cells of a coupled patch, or a FatalError saying why the
// patch cannot be folded into a serial CSR matrix.
const labelUList& neighbourCells
(
    const lduAddressing& a,
    const lduInterfaceField& f,
    label patchi
)
{
    const lduInterface& itf = f.interface();
    const cyclicLduInterface* cyc =
        dynamic_cast<const cyclicLduInterface*>(&itf);
    if (!cyc)
    {
        FatalErrorInFunction
            << "cmrs: cannot fold the coupled interface of patch " << patchi
            << " (type " << f.type() << ") into the matrix: only cyclic "
            << "patches of a serial run are supported (processor, AMI and "
            << "other couplings are not)" << exit(FatalError);
    }
    const cyclicLduInterfaceField* cf =
        dynamic_cast<const cyclicLduInterfaceField*>(&f);
    if (cf && cf->doTransform() && cf->rank() > 0)
    {
        FatalErrorInFunction
            << "cmrs: cannot fold the cyclic patch " << patchi << " (type "
            << f.type() << "): it rotates the solved component"
            << exit(FatalError);
    }
    return a.patchAddr(cyc->neighbPatchID());
}

} // namespace


void LduCsr::build
(
    const lduMatrix& m,
    const FieldField<Field, scalar>& bouCoeffs,
    const lduInterfaceFieldPtrsList& interfaces
)
{
    const lduAddressing& a = m.lduAddr();
    const labelUList& l = a.lowerAddr();
    const labelUList& u = a.upperAddr();
    n = int32_t(a.size());
    const label nf = l.size();

    std::vector<Entry> e;
    e.reserve(size_t(n) + 2*size_t(nf));
    for (int32_t i = 0; i < n; ++i) e.push_back({i, i, i});
    for (label f = 0; f < nf; ++f) e.push_back({l[f], u[f], n + f});
    for (label f = 0; f < nf; ++f) e.push_back({u[f], l[f], n + nf + f});

    ifCells_.assign(interfaces.size(), std::vector<label>());
    int64_t next = n + 2*int64_t(nf);
    std::vector<int64_t> ifStart(interfaces.size(), -1);
    forAll(interfaces, patchi)
    {
        if (!interfaces.set(patchi)) continue;
        const labelUList& fc = a.patchAddr(patchi);
        const labelUList& nb = neighbourCells(a, interfaces[patchi], patchi);
        ifCells_[patchi].assign(fc.begin(), fc.end());
        ifStart[patchi] = next;
        forAll(fc, i) e.push_back({fc[i], nb[i], next + i});
        next += fc.size();
    }

    // Sort by (row, col); equal positions share one slot.
    std::sort(e.begin(), e.end(), [](const Entry& x, const Entry& y)
        { return x.row != y.row ? x.row < y.row : x.col < y.col; });
    std::vector<int32_t> slot(size_t(next), -1);
    indptr.assign(size_t(n) + 1, 0);
    indices.clear();
    for (size_t k = 0; k < e.size(); ++k)
    {
        if (k == 0 || e[k].row != e[k-1].row || e[k].col != e[k-1].col)
        {
            indices.push_back(e[k].col);
            indptr[e[k].row + 1]++;
        }
        slot[e[k].src] = int32_t(indices.size() - 1);
    }
    for (int32_t i = 0; i < n; ++i) indptr[i + 1] += indptr[i];

    diagSlot_.assign(slot.begin(), slot.begin() + n);
    upperSlot_.assign(slot.begin() + n, slot.begin() + n + nf);
    lowerSlot_.assign(slot.begin() + n + nf, slot.begin() + n + 2*nf);
    ifSlot_.assign(interfaces.size(), std::vector<int32_t>());
    forAll(interfaces, patchi)
    {
        if (ifStart[patchi] < 0) continue;
        ifSlot_[patchi].assign(slot.begin() + ifStart[patchi],
            slot.begin() + ifStart[patchi] + ifCells_[patchi].size());
    }
    lowerAddr_.assign(l.begin(), l.end());
    upperAddr_.assign(u.begin(), u.end());
    previous_.clear();
    fill(m, bouCoeffs);
}


bool LduCsr::samePattern
(
    const lduMatrix& m,
    const lduInterfaceFieldPtrsList& interfaces
) const
{
    const lduAddressing& a = m.lduAddr();
    if (a.size() != n || size_t(interfaces.size()) != ifCells_.size())
        return false;
    const labelUList& l = a.lowerAddr();
    const labelUList& u = a.upperAddr();
    if (size_t(l.size()) != lowerAddr_.size()
     || !std::equal(l.begin(), l.end(), lowerAddr_.begin())
     || !std::equal(u.begin(), u.end(), upperAddr_.begin()))
        return false;
    forAll(interfaces, patchi)
    {
        const bool had = !ifSlot_[patchi].empty() || !ifCells_[patchi].empty();
        if ((interfaces.set(patchi) != nullptr) != had) return false;
        if (!had) continue;
        const labelUList& fc = a.patchAddr(patchi);
        if (size_t(fc.size()) != ifCells_[patchi].size()
         || !std::equal(fc.begin(), fc.end(), ifCells_[patchi].begin()))
            return false;
    }
    return true;
}


bool LduCsr::fill(const lduMatrix& m, const FieldField<Field, scalar>& bc)
{
    const scalarField& d = m.diag();
    const scalarField& up = m.upper();
    const scalarField& lo = m.lower();   // upper() when symmetric
    values.assign(indices.size(), 0.0);
    double diagSum = 0;
    forAll(d, i)
    {
        values[diagSlot_[i]] += d[i];
        diagSum += d[i];
    }
    forAll(up, f)
    {
        values[upperSlot_[f]] += up[f];
        values[lowerSlot_[f]] += lo[f];
    }
    // Amul subtracts bouCoeffs times the neighbour's value.
    for (size_t p = 0; p < ifSlot_.size(); ++p)
    {
        for (size_t i = 0; i < ifSlot_[p].size(); ++i)
            values[ifSlot_[p][i]] -= bc[label(p)][label(i)];
    }
    // CG needs SPD: OpenFOAM's laplacian is negative definite.
    sign = diagSum < 0 ? -1.0 : 1.0;
    if (sign < 0)
        for (double& v : values) v = -v;
    const bool changed = values != previous_;
    previous_ = values;
    return changed;
}


void LduCsr::multiply(const double* x, double* y) const
{
    for (int32_t i = 0; i < n; ++i)
    {
        double s = 0;
        for (int32_t k = indptr[i]; k < indptr[i + 1]; ++k)
            s += values[k]*x[indices[k]];
        y[i] = sign*s;
    }
}


void LduCsr::verify
(
    const lduMatrix& m,
    const FieldField<Field, scalar>& bc,
    const lduInterfaceFieldPtrsList& interfaces,
    direction cmpt
) const
{
    solveScalarField v(n), y(n), z(n, 0.0);
    std::vector<double> w(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) v[i] = 1.0 + 0.5*std::sin(0.7*i);
    m.Amul(y, tmp<solveScalarField>(v), bc, interfaces, cmpt);
    multiply(v.begin(), w.data());
    double err = 0, scale = 0;
    for (int32_t i = 0; i < n; ++i)
    {
        err = std::max(err, std::fabs(y[i] - w[i]));
        scale = std::max(scale, std::fabs(y[i]));
    }
    for (int32_t i = 0; i < n; ++i)
        for (int32_t k = indptr[i]; k < indptr[i + 1]; ++k)
            scale = std::max(scale, std::fabs(values[k]));
    solveScalarField zero(n, 0.0);
    m.Amul(z, tmp<solveScalarField>(zero), bc, interfaces, cmpt);
    const double affine = gMax(mag(z)());
    if (err > 1e-10*scale || affine > 0)
    {
        FatalErrorInFunction
            << "cmrs: the CSR form of the matrix does not reproduce "
            << "OpenFOAM's A*x (max difference " << err << ", A*0 = "
            << affine << "): an interface adds terms that cannot be folded "
            << "(interface types:";
        forAll(interfaces, p)
            if (interfaces.set(p)) FatalError << ' ' << interfaces[p].type();
        FatalError << ")" << exit(FatalError);
    }
}

} // namespace cmrsFoam
} // namespace Foam
