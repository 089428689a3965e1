rchar: 37711227856
wchar: 13659
syscr: 287932
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
