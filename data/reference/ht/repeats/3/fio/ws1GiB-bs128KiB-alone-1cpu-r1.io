rchar: 29202516433
wchar: 5972
syscr: 222987
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
