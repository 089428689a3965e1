rchar: 120380262987
wchar: 11298
syscr: 918638
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
