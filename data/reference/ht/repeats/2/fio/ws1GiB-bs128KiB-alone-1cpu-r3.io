rchar: 29114042833
wchar: 5974
syscr: 222312
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
