rchar: 30736509934
wchar: 13664
syscr: 1876222
syscw: 5
read_bytes: 487424
write_bytes: 12288
cancelled_write_bytes: 0
