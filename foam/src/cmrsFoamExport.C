/* SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md) */
#include "cmrsFoamExport.H"
#include "cmrsFoamEntries.H"
#include "OSspecific.H"

#include <hdf5.h>

#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>

namespace Foam
{
namespace cmrsFoam
{

void ExportControl::read(const dictionary& d)
{
    every_ = label(readNumber(d, "exportEvery", 0, 0, labelMax, true));
    times_.clear();
    const entry* e = d.findEntry("exportTimes", keyType::LITERAL);
    if (e)
    {
        ITstream& is = e->stream();
        is >> times_;
        if (is.bad() || is.nRemainingTokens() != 0)
        {
            FatalIOErrorInFunction(d)
                << "cmrs: entry 'exportTimes' of " << d.dictName()
                << " must be a list of times, like (0.1 0.5)"
                << exit(FatalIOError);
        }
    }
    // exportTimes or exportEvery alone switch the export on.
    const word on = readChoice(d, "export", {"yes", "no", "on", "off",
        "true", "false"}, e || every_ > 0 ? "yes" : "no");
    enabled_ = on == "yes" || on == "on" || on == "true";
    dir_ = d.getOrDefault<fileName>("exportDir", "cmrsExport");
}


ExportInfo exportInfo(const Time& t, const word& field,
                      const solverPerformance& perf)
{
    ExportInfo info;
    info.field = field;
    info.solver = perf.solverName();
    info.caseName = t.caseName();
    info.timeName = t.timeName();
    info.time = t.value();
    info.initialResidual = perf.initialResidual();
    info.finalResidual = perf.finalResidual();
    info.iterations = perf.nIterations();
    return info;
}


bool ExportControl::due(const Time& t) const
{
    if (!enabled_) return false;
    if (every_ > 0 && t.timeIndex() % every_ == 0) return true;
    for (const scalar s : times_)
        if (mag(t.value() - s) < 0.5*t.deltaTValue()) return true;
    return every_ == 0 && times_.empty();   // export alone: every step
}


fileName ExportControl::path(const Time& t, const word& field) const
{
    // Solves of field in this time step so far (PISO solves p again).
    static std::map<std::string, std::pair<label, label>> count;
    std::pair<label, label>& c = count[field];
    c.second = c.first == t.timeIndex() ? c.second + 1 : 1;
    c.first = t.timeIndex();
    const fileName dir = dir_.isAbsolute() ? dir_ : t.path()/dir_;
    word name = field + "_" + t.timeName();
    if (c.second > 1) name += "_" + Foam::name(c.second);
    return dir/(name + ".h5");
}


namespace
{

// One HDF5 file being written; every failure is remembered, not thrown,
// so that the file is closed and the temporary removed once.
struct H5Writer
{
    hid_t file = -1;
    bool ok = true;

    void dataset(const char* name, hid_t memType, hid_t fileType,
                 hsize_t n, const void* data)
    {
        if (!ok) return;
        hid_t space = H5Screate_simple(1, &n, nullptr);
        hid_t ds = H5Dcreate2(file, name, fileType, space, H5P_DEFAULT,
                              H5P_DEFAULT, H5P_DEFAULT);
        ok = ds >= 0 && H5Dwrite(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                 data) >= 0;
        if (ds >= 0) H5Dclose(ds);
        H5Sclose(space);
    }

    void attr(const char* obj, const char* name, hid_t memType,
              hid_t fileType, hsize_t n, const void* v)
    {
        if (!ok) return;
        hid_t space = n == 1 ? H5Screate(H5S_SCALAR)
                             : H5Screate_simple(1, &n, nullptr);
        hid_t a = H5Acreate_by_name(file, obj, name, fileType, space,
                                    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok = a >= 0 && H5Awrite(a, memType, v) >= 0;
        if (a >= 0) H5Aclose(a);
        H5Sclose(space);
    }

    void text(const char* name, const std::string& s)
    {
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, s.size() + 1);
        attr("/", name, type, type, 1, s.c_str());
        H5Tclose(type);
    }

    void number(const char* name, double v)
    {
        attr("/", name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, &v);
    }
};


void writeContents(H5Writer& w, const LduCsr& c, const scalarField& b,
                   const scalarField& x0, const scalarField& x,
                   const ExportInfo& info)
{
    const hsize_t n = hsize_t(c.n), nnz = c.indices.size();
    hid_t g = H5Gcreate2(w.file, "/A", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    w.ok = g >= 0;
    if (g >= 0) H5Gclose(g);
    w.dataset("/A/data", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, nnz,
              c.values.data());
    w.dataset("/A/indices", H5T_NATIVE_INT32, H5T_STD_I32LE, nnz,
              c.indices.data());
    w.dataset("/A/indptr", H5T_NATIVE_INT32, H5T_STD_I32LE, n + 1,
              c.indptr.data());
    const int64_t shape[2] = {c.n, c.n};
    w.attr("/A", "shape", H5T_NATIVE_INT64, H5T_STD_I64LE, 2, shape);
    std::vector<double> bs(b.begin(), b.end());
    for (double& v : bs) v *= c.sign;
    w.dataset("/b", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, bs.data());
    w.dataset("/x0", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, x0.cdata());
    w.dataset("/x_foam", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, n, x.cdata());
    w.text("case", info.caseName);
    w.text("field", info.field);
    w.text("time_name", info.timeName);
    w.text("foam_solver", info.solver);
    w.text("written_by", "libcmrsFoam (OpenFOAM " + std::to_string(OPENFOAM)
           + ")");
    w.number("time", info.time);
    w.number("foam_sign", c.sign);
    w.number("foam_initial_residual", info.initialResidual);
    w.number("foam_final_residual", info.finalResidual);
    w.number("foam_iterations", double(info.iterations));
}

} // namespace


void writeSystem(const fileName& path, const LduCsr& csr, const scalarField& b,
                 const scalarField& x0, const scalarField& x,
                 const ExportInfo& info)
{
    mkDir(path.path());
    const fileName tmp = path.path()/("." + path.name() + ".tmp."
                         + Foam::name(label(::getpid())));
    H5Writer w;
    H5E_BEGIN_TRY
    {
        w.file = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                           H5P_DEFAULT);
        w.ok = w.file >= 0;
        writeContents(w, csr, b, x0, x, info);
        if (w.file >= 0 && H5Fclose(w.file) < 0) w.ok = false;
    }
    H5E_END_TRY;
    if (!w.ok || std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        std::remove(tmp.c_str());
        FatalErrorInFunction
            << "cmrs: cannot write the exported system " << path
            << exit(FatalError);
    }
    Info<< "cmrs: exported " << info.field << " at time " << info.timeName
        << " to " << path << endl;
}

} // namespace cmrsFoam
} // namespace Foam
