rchar: 40642653150
wchar: 13664
syscr: 310297
syscw: 5
read_bytes: 69632
write_bytes: 32768
cancelled_write_bytes: 0
