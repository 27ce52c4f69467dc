/* SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md) */
#include "cmrsFoamEntries.H"

namespace Foam
{
namespace cmrsFoam
{

namespace
{

// The entry's single token, or a FatalIOError naming the entry.
token singleToken(const dictionary& d, const entry& e, const word& key,
                  const char* expected)
{
    if (e.isDict())
    {
        FatalIOErrorInFunction(d)
            << "cmrs: entry '" << key << "' of " << d.dictName()
            << " must be " << expected << ", not a dictionary"
            << exit(FatalIOError);
    }
    ITstream& is = e.stream();
    token t(is);
    if (is.nRemainingTokens() != 0 || t.isPunctuation() || !t.good())
    {
        FatalIOErrorInFunction(d)
            << "cmrs: entry '" << key << "' of " << d.dictName()
            << " must be " << expected << ", got '" << e.stream() << "'"
            << exit(FatalIOError);
    }
    return t;
}

} // namespace


scalar readNumber(const dictionary& d, const word& key, scalar def,
                  scalar lo, scalar hi, bool integer)
{
    const entry* e = d.findEntry(key, keyType::LITERAL);
    if (!e) return def;
    const char* what = integer ? "an integer" : "a number";
    const token t = singleToken(d, *e, key, what);
    if (!t.isNumber() || !(t.number() >= lo && t.number() <= hi)
     || (integer && !t.isLabel()))
    {
        FatalIOErrorInFunction(d)
            << "cmrs: entry '" << key << "' of " << d.dictName()
            << " must be " << what << " in [" << lo << ", " << hi
            << "], got '" << t << "'" << exit(FatalIOError);
    }
    return t.number();
}


word readChoice(const dictionary& d, const word& key, const wordList& allowed,
                const word& def)
{
    const entry* e = d.findEntry(key, keyType::LITERAL);
    if (!e) return def;
    if (e->isDict()) return readChoice(e->dict(), key, allowed, def);
    const token t = singleToken(d, *e, key, "a word");
    if (!t.isWord() || !allowed.found(t.wordToken()))
    {
        FatalIOErrorInFunction(d)
            << "cmrs: entry '" << key << "' of " << d.dictName()
            << ": unknown value '" << t << "'; valid values: " << allowed
            << exit(FatalIOError);
    }
    return t.wordToken();
}


const dictionary& checkedControls(const dictionary& d)
{
    readNumber(d, "tolerance", 1e-6, 0, 1);
    readNumber(d, "relTol", 0, 0, 1);
    // (maxIter 0 is OpenFOAM's "do not solve": fvMatrix skips the solver.)
    readNumber(d, "maxIter", 1000, 0, 100000, true);
    readNumber(d, "minIter", 0, 0, 100000, true);
    return d;
}

} // namespace cmrsFoam
} // namespace Foam
