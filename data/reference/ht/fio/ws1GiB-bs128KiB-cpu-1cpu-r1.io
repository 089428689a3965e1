rchar: 14790887891
wchar: 5974
syscr: 113035
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
