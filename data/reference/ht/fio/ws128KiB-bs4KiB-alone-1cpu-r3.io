rchar: 31493736909
wchar: 5981
syscr: 7689074
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
