rchar: 68804783122
wchar: 18970
syscr: 525159
syscw: 5
read_bytes: 110592
write_bytes: 12288
cancelled_write_bytes: 0
